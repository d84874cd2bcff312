// A target reference accepted at admission resolves to exactly the group, version and resource that the
// admission policy authorized, and nothing else is accepted (api/target-ref.ts). The policy splits the
// apiVersion at its first `/` (apiGroupOf is its TypeScript spelling, held to the CEL by
// test/integration/api/target-admission.test.ts); the operator builds URLs through resourcePath. Hostile
// strings (dot segments, encoded dots and slashes, query and fragment marks, backslashes, unicode,
// spaces, empty segments) are generated from the characters that change how a URL resolves.
import fc from "fast-check";
import { TargetRef } from "../../../src/api/instance-group-manager.js";
import { apiGroupOf, guessResource } from "../../../src/api/target-kinds.js";
import { groupVersionPath, parseApiVersion, targetRefProblem } from "../../../src/api/target-ref.js";
import { resourcePath } from "../../../src/runtime/resource-kind.js";

const PIECES = [
  "apps",
  "v1",
  "karpenter.sh",
  "api",
  "pods",
  "..",
  ".",
  "/",
  "%2e",
  "%2f",
  "%2F",
  "%5c",
  "?",
  "#",
  "\\",
  "ａ",
  "é",
  " ",
  "",
  "-",
  "v1beta1",
  "x",
  "..%2f",
  "watch=true",
  "&",
  ";",
  ":",
  "@",
  "\t",
  "\u0000",
];

const hostile = fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 8 }).map((p) => p.join(""));
const anyString = fc.oneof(
  hostile,
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 20 }),
);

const accepted = (apiVersion: string, kind = "Widget"): boolean =>
  TargetRef.safeParse({ apiVersion, kind, name: "w1" }).success;

test("an accepted apiVersion addresses exactly the group and version the policy authorized", () => {
  let acceptedCount = 0;
  fc.assert(
    fc.property(anyString, (apiVersion) => {
      if (!accepted(apiVersion)) {
        expect(parseApiVersion(apiVersion)).toBeUndefined();
        expect(() => groupVersionPath(apiVersion)).toThrow("not an API version");
        expect(targetRefProblem({ apiVersion, kind: "Widget" })).toContain("spec.targetRef.apiVersion");
        return;
      }
      acceptedCount += 1;
      const policyGroup = apiGroupOf(apiVersion);
      const version = apiVersion.slice(policyGroup === "" ? 0 : policyGroup.length + 1);
      const resource = guessResource("Widget");
      const path = resourcePath(
        { apiVersion, resource, namespaced: true },
        { namespace: "ns", name: "w1" },
        "scale",
      );
      const url = new URL(path, "https://api.example");
      // Nothing the URL parser resolves or strips: the path is the one sent, with no query or fragment.
      expect(url.pathname).toBe(path);
      expect(url.search + url.hash).toBe("");
      const prefix = policyGroup === "" ? ["api", version] : ["apis", policyGroup, version];
      expect(path.split("/").slice(1).map(decodeURIComponent)).toEqual([
        ...prefix,
        "namespaces",
        "ns",
        resource,
        "w1",
        "scale",
      ]);
    }),
    { numRuns: 5000 },
  );
  // Not vacuous: the generator also builds well-formed references from its pieces.
  expect(acceptedCount).toBeGreaterThan(20);
});

test.each([
  "apps/../testbed.resize-operator.dev/v1",
  "apps/%2e%2e/karpenter.sh/v1",
  "apps/../../api/v1/pods?",
  "apps/v1?watch=1",
  "apps/v1#",
  "apps\\..\\karpenter.sh/v1",
  "apps//v1",
  "/v1",
  "apps/",
  " apps/v1",
  "ａpps/v1",
  "Apps/v1",
  "apps/V1",
  "apps/1",
  "a/b/c",
])("%j is refused by the schema and by the parser", (apiVersion) => {
  expect(accepted(apiVersion)).toBe(false);
  expect(parseApiVersion(apiVersion)).toBeUndefined();
});

test.each([
  ["apps/v1", "apps", "v1"],
  ["v1", "", "v1"],
  ["karpenter.sh/v1", "karpenter.sh", "v1"],
  ["cluster.x-k8s.io/v1beta2", "cluster.x-k8s.io", "v1beta2"],
])("%s is group %j, version %s", (apiVersion, group, version) => {
  expect(accepted(apiVersion)).toBe(true);
  expect(parseApiVersion(apiVersion)).toEqual({ group, version });
});

test("a kind is letters and digits", () => {
  fc.assert(
    fc.property(anyString, (kind) => {
      const ok = accepted("apps/v1", kind);
      expect(ok).toBe(/^[A-Za-z][A-Za-z0-9]{0,62}$/.test(kind));
    }),
    { numRuns: 2000 },
  );
});
