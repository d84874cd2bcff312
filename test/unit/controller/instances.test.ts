// Whose instances: which Nodes a succeeding attempt takes and labels, and which NodeClaims a release or
// a rollback deletes (src/targets/instances/view.ts, decide/instances.ts).
import { decide } from "../../../src/controllers/resize/decide/index.js";
import {
  attemptInstances,
  claimFor,
  labelsFor,
  labelWrites,
  listed,
  ownerOf,
  DELETE_MACHINE,
  POD_DELETION_COST,
  type InstancesView,
  type ObservedInstance,
} from "../../../src/targets/instances/view.js";
import {
  GKE_PROVISIONING_REQUEST_LABEL,
  REQUEST_LABEL,
  REQUEST_NAMESPACE_LABEL,
} from "../../../src/api/instance-labels.js";
import { MAX_LISTED_INSTANCES } from "../../../src/api/resize-request.js";
import { HOLD_ANNOTATION, nodeLimitOfPool } from "../../../src/targets/karpenter/node-limit.js";
import { poolLimit } from "../../../src/targets/karpenter.js";

/** The pool's limit as its kind module reads it from the NodePool (targets/karpenter.ts), with `instances` read. */
function limitOf(nodes: string | undefined, held: string | null | undefined, instances: number) {
  const annotations = held === undefined ? {} : { [HOLD_ANNOTATION]: JSON.stringify(held) };
  return poolLimit(
    { metadata: { annotations }, spec: { limits: nodes === undefined ? {} : { nodes } } },
    instances,
  );
}
import {
  appliedRequest,
  finalStatus,
  iso,
  MIN,
  NAMESPACE,
  releaseOf,
  req,
  SEC,
  snap,
  statusOf,
  T0,
} from "./builders.js";

const A = { namespace: NAMESPACE, name: "a" };
const B = { namespace: NAMESPACE, name: "b" };

function node(name: string, o: Partial<ObservedInstance> = {}): ObservedInstance {
  return {
    node: name,
    nodeClaim: `claim-${name}`,
    owner: undefined,
    complete: true,
    gkeLabel: undefined,
    createdMs: T0 - MIN,
    ready: true,
    deleting: false,
    ...o,
  };
}

const pool = (...items: ObservedInstance[]): InstancesView => ({ mechanism: "DeleteNodeClaims", items });
const names = (items: readonly ObservedInstance[]): (string | undefined)[] => items.map((i) => i.node);

describe("claimFor: the instances a succeeding attempt takes", () => {
  test.each([
    {
      why: "the newest free ready Nodes, not the pool's older ones",
      items: [node("base-1", { createdMs: T0 - 60 * MIN }), node("new-1"), node("new-2", { createdMs: T0 })],
      k: 2,
      want: ["new-2", "new-1"],
    },
    {
      why: "never another request's, however new",
      items: [node("b-1", { owner: B, createdMs: T0 }), node("new-1"), node("old", { createdMs: 0 })],
      k: 2,
      want: ["new-1", "old"],
    },
    {
      why: "its own labelled ones first (a pass that labelled them ended early)",
      items: [node("a-1", { owner: A, createdMs: 0 }), node("new-1"), node("new-2")],
      k: 2,
      want: ["a-1", "new-1"],
    },
    {
      why: "not a Node that is not ready or is being deleted, nor a NodeClaim without a Node",
      items: [
        node("unready", { ready: false, createdMs: T0 }),
        node("deleting", { deleting: true, createdMs: T0 }),
        node("x", { node: undefined, createdMs: T0 }),
        node("ok"),
      ],
      k: 2,
      want: ["ok"],
    },
  ])("$why", ({ items, k, want }) => {
    expect(names(claimFor(pool(...items), A, k))).toEqual(want);
  });
});
test("claimFor: a request that names its instances (a StatefulSet's next ordinals) takes exactly those", () => {
  const view: InstancesView = {
    mechanism: "HighestOrdinals",
    items: ["web-0", "web-1", "web-2"].map((name, i) =>
      node(name, { pod: name, node: undefined, nodeClaim: undefined, createdMs: T0 - (3 - i) * MIN }),
    ),
  };
  expect(claimFor(view, A, 1, ["web-1"]).map((i) => i.pod)).toEqual(["web-1"]);
  expect(claimFor(view, A, 1).map((i) => i.pod)).toEqual(["web-2"]);
});

test("attemptInstances: the free instances created since the attempt started, at most k", () => {
  const started = T0 - 10 * SEC;
  const view = pool(
    node("before", { createdMs: started - 5 * SEC }),
    node("b-1", { owner: B, createdMs: T0 }),
    node("launching", { node: undefined, nodeClaim: "claim-launching", createdMs: T0 }),
    node("after", { createdMs: started + SEC }),
    node("gone", { deleting: true, createdMs: T0 }),
  );
  expect(attemptInstances(view, started, 5).map((i) => i.nodeClaim)).toEqual([
    "claim-launching",
    "claim-after",
  ]);
  expect(attemptInstances(view, started, 1)).toHaveLength(1);
});

test("labels: ours on every instance, GKE's only for a ProvisioningRequest's; writes skip done ones", () => {
  expect(labelsFor(A, false)).toEqual({ [REQUEST_LABEL]: "a", [REQUEST_NAMESPACE_LABEL]: NAMESPACE });
  const gke = labelsFor(A, true);
  expect(gke[GKE_PROVISIONING_REQUEST_LABEL]).toBe("a");
  expect(ownerOf(gke)).toEqual(A);
  expect(ownerOf({ [REQUEST_LABEL]: "a" })).toBeUndefined();
  const done = node("done", { owner: A });
  const half = node("half", { owner: A, complete: false });
  const fresh = node("fresh");
  const writes = labelWrites([done, half, fresh], A, labelsFor(A, false));
  expect(writes.map((w) => `${w.kind}/${w.name}`)).toEqual([
    "NodeClaim/claim-half",
    "Node/half",
    "NodeClaim/claim-fresh",
    "Node/fresh",
  ]);
  expect(labelWrites([done], A, gke).map((w) => w.name)).toEqual(["claim-done", "done"]);
});

test("listed: oldest first, bounded, truncation said", () => {
  const many = Array.from({ length: MAX_LISTED_INSTANCES + 2 }, (_, i) =>
    node(`n-${String(i).padStart(4, "0")}`, { createdMs: i }),
  );
  const out = listed(many.reverse());
  expect(out.instances).toHaveLength(MAX_LISTED_INSTANCES);
  expect(out.instances[0]).toEqual({ kind: "Node", name: "n-0000" });
  expect(out.instancesTruncated).toBe(true);
  expect(listed([node("x")])).toEqual({ instances: [{ kind: "Node", name: "x" }] });
});

describe("decide", () => {
  test("an attempt that succeeds lists and labels its Nodes before its status is written", () => {
    const a = appliedRequest("a");
    const s = {
      ...snap({ replicas: 5, ready: 5, requests: [a] }),
      instances: pool(
        node("base-1", { createdMs: 0 }),
        node("base-2", { createdMs: 0 }),
        node("new-1"),
        node("new-2"),
        node("new-3"),
      ),
    };
    const plan = decide(s);
    const status = statusOf(plan, "a");
    expect(status.state).toBe("SUCCEEDED");
    expect(status.instances?.map((i) => i.name).sort()).toEqual(["new-1", "new-2", "new-3"]);
    expect(new Set(plan.labels.map((w) => w.name))).toEqual(
      new Set(["new-1", "new-2", "new-3", "claim-new-1", "claim-new-2", "claim-new-3"]),
    );
    expect(plan.labels.every((w) => w.labels?.[GKE_PROVISIONING_REQUEST_LABEL] === undefined)).toBe(true);
  });

  test("a request a ProvisioningRequest created also labels its Nodes with GKE's key", () => {
    const a = { ...appliedRequest("a"), forProvisioningRequest: true };
    const s = {
      ...snap({ replicas: 5, ready: 5, requests: [a] }),
      instances: pool(node("n1"), node("n2"), node("n3")),
    };
    const plan = decide(s);
    expect(
      plan.labels.filter((w) => w.kind === "Node").map((w) => w.labels?.[GKE_PROVISIONING_REQUEST_LABEL]),
    ).toEqual(["a", "a", "a"]);
  });

  test("the run duration's release deletes exactly the request's NodeClaims with the lower count", () => {
    const a = req("a", {
      resizeBy: 2,
      status: finalStatus("a", "SUCCEEDED", { runUntil: iso(T0 - SEC), succeededTime: iso(T0 - MIN) }),
    });
    const s = {
      ...snap({ replicas: 4, requests: [a] }),
      instances: pool(
        node("a-1", { owner: A }),
        node("a-2", { owner: A }),
        node("b-1", { owner: B, createdMs: T0 }),
        node("b-2", { owner: B, createdMs: T0 }),
      ),
    };
    const plan = decide(s);
    expect(plan.scale).toMatchObject({ request: "a", from: 4, replicas: 2 });
    expect([...(plan.scale?.removal?.deletes.map((o) => o.name) ?? [])].sort()).toEqual([
      "claim-a-1",
      "claim-a-2",
    ]);
    // Applied again after a crash: the NodeClaims already being deleted are not deleted twice.
    const again = {
      ...snap({
        replicas: 4,
        requests: [
          req("a", {
            resizeBy: 2,
            status: finalStatus("a", "SUCCEEDED", {
              runUntil: iso(T0 - MIN),
              release: releaseOf({ phase: "Applying", baseReplicas: 4, targetReplicas: 2 }),
            }),
          }),
        ],
      }),
      instances: pool(
        node("a-1", { owner: A, deleting: true }),
        node("a-2", { owner: A }),
        node("b-1", { owner: B }),
      ),
    };
    expect(decide(again).scale?.removal?.deletes).toEqual([{ kind: "NodeClaim", name: "claim-a-2" }]);
  });

  test("the pool's node limit is held at its NodeClaims while the request's go, and given back after", () => {
    const a = req("a", {
      resizeBy: 2,
      status: finalStatus("a", "SUCCEEDED", { runUntil: iso(T0 - SEC), succeededTime: iso(T0 - MIN) }),
    });
    const items = [node("a-1", { owner: A }), node("a-2", { owner: A }), node("b-1", { owner: B })];
    const s = { ...snap({ replicas: 3, requests: [a] }), instances: pool(...items) };
    const holding = decide({ ...s, limit: limitOf("8", undefined, s.instances.items.length) });
    expect(holding.scale?.removal?.hold).toEqual({
      metadata: { annotations: { [HOLD_ANNOTATION]: '"8"' } },
      spec: { limits: { nodes: "3" } },
    });
    expect(holding.targetPatch).toBeUndefined();
    // A pool without a limit: none is given back; a pool whose own limit is lower keeps it.
    const unlimited = decide({ ...s, limit: limitOf(undefined, undefined, s.instances.items.length) });
    expect(unlimited.scale?.removal?.hold?.metadata?.annotations?.[HOLD_ANNOTATION]).toBe("null");
    const tight = decide({ ...s, limit: limitOf("2", undefined, s.instances.items.length) });
    expect(tight.scale?.removal?.hold?.["spec"]).toEqual({ limits: { nodes: "2" } });
    // Held again after a crash: the first recorded value is the pool's own.
    const again = decide({ ...s, limit: limitOf("3", "8", s.instances.items.length) });
    expect(again.scale?.removal?.hold?.metadata?.annotations?.[HOLD_ANNOTATION]).toBe('"8"');
    // The release applied, nothing more to remove: the limit goes back, the annotation away.
    const done = req("a", {
      resizeBy: 2,
      status: finalStatus("a", "SUCCEEDED", {
        runUntil: iso(T0 - MIN),
        release: releaseOf({ phase: "Applying", baseReplicas: 3, targetReplicas: 1 }),
      }),
    });
    const after = decide({
      ...snap({ replicas: 1, requests: [done] }),
      instances: pool(node("b-1", { owner: B })),
      limit: limitOf("3", null, 1),
    });
    expect(after.scale).toBeUndefined();
    expect(after.targetPatch).toEqual({
      metadata: { annotations: { [HOLD_ANNOTATION]: null } },
      spec: { limits: { nodes: null } },
    });
    expect(
      nodeLimitOfPool({
        metadata: { annotations: { [HOLD_ANNOTATION]: '"8"' } },
        spec: { limits: { nodes: 3 } },
      }),
    ).toEqual({
      current: 3,
      heldOriginal: "8",
    });
  });

  test("a Deployment's release gives the request's pods the lowest deletion cost, then lowers it", () => {
    const a = req("a", {
      resizeBy: 2,
      status: finalStatus("a", "SUCCEEDED", { runUntil: iso(T0 - SEC), succeededTime: iso(T0 - MIN) }),
    });
    const pod = (name: string, o: Partial<ObservedInstance> = {}): ObservedInstance =>
      node(name, { pod: name, node: undefined, nodeClaim: undefined, ...o });
    const s = {
      ...snap({ replicas: 4, requests: [a] }),
      instances: {
        mechanism: "PodDeletionCost" as const,
        items: [pod("a-1", { owner: A }), pod("a-2", { owner: A }), pod("b-1", { owner: B }), pod("base")],
      },
    };
    const plan = decide(s);
    expect(plan.scale).toMatchObject({ request: "a", from: 4, replicas: 2 });
    expect(plan.scale?.removal?.deletes).toEqual([]);
    expect(plan.scale?.removal?.hold).toBeUndefined();
    expect(
      plan.scale?.removal?.writes.map((w) => [w.kind, w.name, w.annotations?.[POD_DELETION_COST]]).sort(),
    ).toEqual([
      ["Pod", "a-1", "-2147483648"],
      ["Pod", "a-2", "-2147483648"],
    ]);
    // A StatefulSet removes its highest ordinals whatever the cost: count-only.
    const sts = decide({ ...s, instances: { ...s.instances, mechanism: "CountOnly" as const } });
    expect(sts.scale?.removal).toBeUndefined();
    // Its pods are listed as the request's when it succeeds.
    const applied = appliedRequest("c");
    const won = decide({
      ...snap({ replicas: 5, ready: 5, requests: [applied] }),
      instances: { mechanism: "PodDeletionCost" as const, items: [pod("p1"), pod("p2"), pod("p3")] },
    });
    expect(statusOf(won, "c").instances).toEqual([
      { kind: "Pod", name: "p1" },
      { kind: "Pod", name: "p2" },
      { kind: "Pod", name: "p3" },
    ]);
    expect(won.labels.map((w) => `${w.kind}/${w.name}`).sort()).toEqual(["Pod/p1", "Pod/p2", "Pod/p3"]);
  });

  test("a MachineDeployment's release annotates the request's Machines delete-machine, then lowers it", () => {
    const a = req("a", {
      resizeBy: 2,
      status: finalStatus("a", "SUCCEEDED", { runUntil: iso(T0 - SEC), succeededTime: iso(T0 - MIN) }),
    });
    const machine = (name: string, o: Partial<ObservedInstance> = {}): ObservedInstance =>
      node(name, { machine: name, node: undefined, nodeClaim: undefined, ...o });
    const s = {
      ...snap({ replicas: 4, requests: [a] }),
      instances: {
        mechanism: "DeleteMachineAnnotation" as const,
        items: [
          machine("md-x1", { owner: A }),
          machine("md-x2", { owner: A }),
          machine("md-y1", { owner: B }),
          machine("md-base"),
        ],
      },
    };
    const plan = decide(s);
    expect(plan.scale).toMatchObject({ request: "a", from: 4, replicas: 2 });
    expect(plan.scale?.removal?.deletes).toEqual([]);
    expect(plan.scale?.removal?.hold).toBeUndefined();
    expect(
      plan.scale?.removal?.writes.map((w) => [w.kind, w.name, w.annotations?.[DELETE_MACHINE]]).sort(),
    ).toEqual([
      ["Machine", "md-x1", "true"],
      ["Machine", "md-x2", "true"],
    ]);
    // Its Machines are labelled and listed as the request's when it succeeds; one being deleted is not.
    const applied = appliedRequest("c");
    const won = decide({
      ...snap({ replicas: 5, ready: 5, requests: [applied] }),
      instances: {
        mechanism: "DeleteMachineAnnotation" as const,
        items: [machine("m1"), machine("m2"), machine("m3"), machine("m4", { deleting: true })],
      },
    });
    expect(statusOf(won, "c").instances).toEqual([
      { kind: "Machine", name: "m1" },
      { kind: "Machine", name: "m2" },
      { kind: "Machine", name: "m3" },
    ]);
    expect(won.labels.map((w) => `${w.kind}/${w.name}`).sort()).toEqual([
      "Machine/m1",
      "Machine/m2",
      "Machine/m3",
    ]);
  });

  test("a target counting ready instances that are going: the attempt waits for its own", () => {
    // Right after a release lowered the target, its controller may still count the Machines being
    // deleted as ready: the attempt of 3 sees 5 of 5 ready, but only 1 of its own Machines exists.
    const machine = (name: string, o: Partial<ObservedInstance> = {}): ObservedInstance =>
      node(name, { machine: name, node: undefined, nodeClaim: undefined, ...o });
    const s = {
      ...snap({ replicas: 5, ready: 5, requests: [appliedRequest("c")] }),
      instances: {
        mechanism: "DeleteMachineAnnotation" as const,
        items: [
          machine("base-1", { owner: B }),
          machine("gone-1", { owner: A, deleting: true }),
          machine("gone-2", { owner: A, deleting: true }),
          machine("new-1"),
          machine("new-2", { ready: false }),
        ],
      },
    };
    const waiting = decide(s);
    expect(statusOf(waiting, "c").state).toBe("ACCEPTED");
    expect(statusOf(waiting, "c").conditions?.find((c) => c.type === "Provisioning")?.message).toContain(
      "the target counts 5, but 1 of the 3 this attempt added are there and ready",
    );
    expect(waiting.labels).toEqual([]);
    // Once its own are there and ready, it succeeds and takes exactly those.
    const items = [...s.instances.items.slice(0, 3), machine("new-2"), machine("new-3"), machine("new-1")];
    const won = decide({ ...s, instances: { ...s.instances, items } });
    expect(statusOf(won, "c").state).toBe("SUCCEEDED");
    expect(
      statusOf(won, "c")
        .instances?.map((i) => i.name)
        .sort(),
    ).toEqual(["new-1", "new-2", "new-3"]);
  });

  test("a count-only group lowers the count and deletes nothing", () => {
    const a = req("a", {
      resizeBy: 2,
      status: finalStatus("a", "SUCCEEDED", { runUntil: iso(T0 - SEC), succeededTime: iso(T0 - MIN) }),
    });
    const s = {
      ...snap({ replicas: 4, requests: [a] }),
      instances: {
        mechanism: "CountOnly" as const,
        items: [node("a-1", { owner: A }), node("a-2", { owner: A })],
      },
    };
    const plan = decide(s);
    expect(plan.scale).toMatchObject({ from: 4, replicas: 2 });
    expect(plan.scale?.removal).toBeUndefined();
  });

  test("a rollback deletes the attempt's own NodeClaims, not an earlier request's", () => {
    const started = T0 - 40 * SEC;
    const a = appliedRequest("a", {
      phase: "RollingBack",
      baseReplicas: 5,
      targetReplicas: 2,
      startedTime: iso(started),
    });
    const s = {
      ...snap({ replicas: 5, ready: 3, requests: [a] }),
      instances: pool(
        node("b-1", { owner: B, createdMs: started + SEC }),
        node("new-1", { createdMs: started + SEC }),
        node("new-2", { createdMs: started + 2 * SEC, ready: false }),
        node("launching", { node: undefined, nodeClaim: "claim-launching", createdMs: started + 3 * SEC }),
        node("base", { createdMs: 0 }),
      ),
    };
    const plan = decide(s);
    expect(plan.scale).toMatchObject({ request: "a", from: 5, replicas: 2 });
    expect([...(plan.scale?.removal?.deletes.map((o) => o.name) ?? [])].sort()).toEqual([
      "claim-launching",
      "claim-new-1",
      "claim-new-2",
    ]);
  });
});
