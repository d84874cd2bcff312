// runPlugin() up to the cluster: help, usage errors and an unreadable kubeconfig, with kubectl's exit
// codes and messages (what happens against a cluster is test/integration/cli/kubectl-resize.test.ts);
// and where `queue` takes the target's counts from, on the in-memory API server.
import { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import { API_VERSION } from "../../../src/api/names.js";
import { HELP } from "../../../src/plugin/args.js";
import { runPlugin, targetOf } from "../../../src/plugin/main.js";
import { ApiError } from "../../../src/runtime/api-errors.js";
import { FakeKube } from "../../support/fake-kube.js";

async function plugin(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runPlugin(argv, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  return { code, stdout, stderr };
}

test.each([
  [["--help"], HELP.root],
  [["wait", "-h"], HELP.wait],
  [["help", "queue"], HELP.queue],
])("%j prints its help and exits 0", async (argv, text) => {
  expect(await plugin(...argv)).toEqual({ code: 0, stdout: text, stderr: "" });
});

test("a usage error exits 1 with kubectl's hint at the command's help", async () => {
  expect(await plugin("cancel")).toEqual({
    code: 1,
    stdout: "",
    stderr:
      "error: cancel needs the name of a ResizeRequest\nSee 'kubectl resize cancel --help' for usage.\n",
  });
  expect((await plugin("scale", "x")).stderr).toBe(
    'error: unknown command "scale" for "kubectl resize"\nSee \'kubectl resize --help\' for usage.\n',
  );
});

test("a kubeconfig that cannot be read", async () => {
  const missing = await plugin("queue", "pool", "--kubeconfig", "/nonexistent/kubeconfig");
  expect(missing.code).toBe(1);
  expect(missing.stderr).toMatch(
    /^error: ENOENT: no such file or directory, open '\/nonexistent\/kubeconfig'/,
  );
});

describe("the target counts `queue` works from", () => {
  const NS = "team-a";
  const group = (spec: Record<string, unknown>): InstanceGroupManager =>
    InstanceGroupManager.parse({
      apiVersion: API_VERSION,
      kind: "InstanceGroupManager",
      metadata: { name: "pool", namespace: NS },
      spec: { zone: "local-a", targetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "w" }, ...spec },
      status: { targetSize: 4, readyInstances: 1 },
    });
  function cluster(): FakeKube {
    const fake = new FakeKube();
    fake.serve("apps/v1", [
      { name: "deployments", kind: "Deployment", namespaced: true },
      { name: "deployments/scale", kind: "Scale", namespaced: true },
    ]);
    fake.seed(
      { apiVersion: "apps/v1", resource: "deployments", namespaced: true },
      { metadata: { name: "w", namespace: NS }, spec: { replicas: 4 }, status: { readyReplicas: 3 } },
    );
    return fake;
  }

  test("the target itself, through /scale and its ready field", async () => {
    expect(await targetOf({ client: cluster(), namespace: NS }, group({}))).toEqual({
      replicas: 4,
      readyReplicas: 3,
    });
  });

  test("a group counting ready Nodes: the operator's count on the group (a user needs no access to Nodes)", async () => {
    const fake = cluster();
    const counted = group({ readiness: { nodeSelector: { pool: "gpu" } } });
    expect(await targetOf({ client: fake, namespace: NS }, counted)).toEqual({
      replicas: 4,
      readyReplicas: 1,
    });
    expect(fake.calls).toEqual([]);
  });

  test("a target the user may not read: the group's status", async () => {
    const fake = cluster().inject({
      match: (c) => c.resource === "deployments",
      when: "before",
      error: () => new ApiError(403, "Forbidden", "deployments.apps is forbidden"),
    });
    expect(await targetOf({ client: fake, namespace: NS }, group({}))).toEqual({
      replicas: 4,
      readyReplicas: 1,
    });
  });
});
