import { kubeVersionFlags } from "../../../testbed/tools.js";

test("Kubernetes link flags stamp both version packages the way the release build does", () => {
  const flags = kubeVersionFlags("v1.36.3");
  for (const pkg of ["k8s.io/client-go/pkg/version", "k8s.io/component-base/version"]) {
    expect(flags).toEqual(
      expect.arrayContaining([
        `-X ${pkg}.gitVersion=v1.36.3`,
        `-X ${pkg}.gitMajor=1`,
        `-X ${pkg}.gitMinor=36`,
        `-X ${pkg}.gitTreeState=clean`,
      ]),
    );
  }
  expect(flags).toHaveLength(8);
});
