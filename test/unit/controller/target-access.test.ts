// Which targets the operator refuses (controller/target-access.ts) and how a refused call on a target is
// told (controller/errors.ts, targetAccessRefusal): pure tables.
import { targetAccessRefusal, type TargetAccess } from "../../../src/targets/access.js";
import { scopeRefusal, waitsForAccess } from "../../../src/targets/access.js";
import { ApiError } from "../../../src/runtime/api-errors.js";

const LISTED = new Set(["NodePool.karpenter.sh"]);

describe("scopeRefusal", () => {
  test.each([
    ["a namespaced apps kind", "apps/v1", "StatefulSet", { resource: "statefulsets", namespaced: true }],
    [
      "a listed cluster-scoped kind",
      "karpenter.sh/v1",
      "NodePool",
      { resource: "nodepools", namespaced: false },
    ],
    // Listed but namespaced: admission checked more than it needed to, which is harmless.
    [
      "a listed kind that is namespaced",
      "karpenter.sh/v1",
      "NodePool",
      { resource: "nodepools", namespaced: true },
    ],
    [
      "a core-group kind",
      "v1",
      "ReplicationController",
      { resource: "replicationcontrollers", namespaced: true },
    ],
  ])("%s is scaled", (_label, apiVersion, kind, served) => {
    expect(scopeRefusal({ apiVersion, kind }, served, LISTED)).toBeUndefined();
  });

  test("a cluster-scoped kind not listed is refused, saying what to list and to re-create the group", () => {
    const refusal = scopeRefusal(
      { apiVersion: "test.example.com/v1", kind: "Gadget" },
      { resource: "gadgets", namespaced: false },
      LISTED,
    );
    expect(refusal?.reason).toBe("ClusterScopedTargetNotAllowed");
    expect(refusal?.message).toContain("Gadget.test.example.com is cluster-scoped");
    expect(refusal?.message).toContain("add Gadget.test.example.com to clusterScopedTargets");
    expect(refusal?.message).toContain("re-create this group");
    expect(
      scopeRefusal({ apiVersion: "v1", kind: "Node" }, { resource: "nodes", namespaced: false }, LISTED)
        ?.reason,
    ).toBe("ClusterScopedTargetNotAllowed");
  });

  test.each([
    [true, "namespaced"],
    [false, "cluster-scoped and listed"],
  ])("a kind served under another resource than the guess is refused (%s: %s)", (namespaced) => {
    const refusal = scopeRefusal(
      { apiVersion: "karpenter.sh/v1", kind: "NodePool" },
      { resource: "pools", namespaced },
      LISTED,
    );
    expect(refusal).toMatchObject({ found: false, reason: "TargetResourceMismatch" });
    expect(refusal?.message).toContain(
      "serves kind NodePool as resource pools.karpenter.sh, but the admission policy checked the group's author's permission on nodepools.karpenter.sh/scale",
    );
  });
});

test.each([
  ["TargetForbidden", true],
  ["ClusterScopedTargetNotAllowed", true],
  ["TargetResourceMismatch", false],
  ["NotFound", false],
  ["NotScalable", false],
] as const)("waitsForAccess(%s) is %s", (reason, waits) => {
  expect(waitsForAccess(reason)).toBe(waits);
});

describe("targetAccessRefusal", () => {
  const object: TargetAccess = {
    verb: "get",
    resource: "widgets",
    apiGroup: "test.example.com",
    name: "w1",
    namespace: "team-a",
  };
  const denied = new ApiError(
    403,
    "Forbidden",
    'widgets.test.example.com "w1" is forbidden: User "op" cannot get',
  );

  test("a 403 on the object: what is forbidden, the server's words, and the chart value that grants it", () => {
    expect(targetAccessRefusal(denied, object)).toEqual({
      found: false,
      reason: "TargetForbidden",
      message:
        'The operator may not get widgets.test.example.com "w1" in namespace team-a (widgets.test.example.com "w1" is forbidden: User "op" cannot get). Grant the operator\'s ServiceAccount get on widgets in API group "test.example.com": with the chart, add {apiGroups: ["test.example.com"], resources: [widgets]} to rbac.extraTargetRules. Requests of this group wait until then.',
    });
  });

  test("a 403 on /scale of a cluster-scoped target names the subresource and no namespace", () => {
    const message = targetAccessRefusal(new ApiError(401, undefined, "Unauthorized"), {
      ...object,
      verb: "update",
      subresource: "scale",
      resource: "nodepools",
      apiGroup: "karpenter.sh",
      namespace: undefined,
    })?.message;
    expect(message).toContain('may not update nodepools.karpenter.sh/scale "w1" (cluster-scoped)');
    expect(message).toContain("get and update on nodepools/scale");
  });

  test.each([
    ["a 404", new ApiError(404, "NotFound", "not found")],
    ["a 409", new ApiError(409, "Conflict", "modified")],
    ["a 500", new ApiError(500, undefined, "boom")],
    ["no answer", Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" })],
  ])("%s is no refusal", (_label, err) => {
    expect(targetAccessRefusal(err, object)).toBeUndefined();
  });
});
