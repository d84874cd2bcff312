// The executor (src/controllers/resize/execute.ts) against the fake API server: the order of its writes, what
// it does on conflicts, and what is left behind when the process dies at any write (before it lands,
// or right after) — and that deciding again from what was left converges to the uncut run.
import { INSTANCE_GROUP_MANAGERS, RESIZE_REQUESTS } from "../../../src/api/kinds.js";
import { decide, type Plan } from "../../../src/controllers/resize/decide/index.js";
import { executePlan } from "../../../src/controllers/resize/execute.js";
import type { GroupSnapshot } from "../../../src/controllers/resize/snapshot.js";
import { ScaleClient } from "../../../src/targets/scale-client.js";
import { ApiError } from "../../../src/runtime/api-errors.js";
import { scaleOf } from "../../../src/runtime/builtin-kinds.js";
import { conflictError, CrashError, isWrite, type FakeCall } from "../../support/fake-kube.js";
import {
  MIN,
  SEC,
  T0,
  drive,
  iso,
  provisioningStatus,
  replicasOf,
  req,
  snap,
  type DriveResult,
} from "./builders.js";
import {
  RecordingRecorder,
  clusterOf,
  execute,
  objectsOf,
  snapshotOf,
  targetLocation,
  type Executed,
} from "./cluster.js";

/**
 * "a" succeeds and "b" (new) starts in one decision: every kind of write the executor makes — a
 * finalizer added (b), two statuses (a, then b's record), the scale 5 → 7, a finalizer removed (a),
 * and the group's status.
 */
function successAndStart(): GroupSnapshot {
  const a = req("a", {
    resizeBy: 3,
    hasFinalizer: true,
    created: T0 - 20 * MIN,
    status: provisioningStatus("a", {
      phase: "Applied",
      baseReplicas: 2,
      targetReplicas: 5,
      appliedTime: iso(T0 - 30 * SEC),
    }),
  });
  const b = req("b", { resizeBy: 2, created: T0 - 10 * MIN });
  return snap({ replicas: 5, ready: 5, requests: [a, b] });
}

const s0 = successAndStart();
const plan0 = decide(s0);
const label = (c: FakeCall): string => `${c.verb} ${c.resource} ${c.name ?? ""}`;
const writesOf = (e: Executed): string[] => e.fake.writes().map(label);

const CLEAN_WRITES = [
  "mergePatch resizerequests b",
  "updateStatus resizerequests a",
  "updateStatus resizerequests b",
  "update deployments/scale workers",
  "mergePatch resizerequests a",
  "updateStatus instancegroupmanagers pool",
];

/**
 * The writes sent together (indexes into CLEAN_WRITES): b's finalizer with a's status (different
 * objects; b's status waits for its finalizer), and at the end a's finalizer removal with the group's
 * status. A crash at one write of a wave does not stop the others of the same wave.
 */
const WAVES = [[0, 1], [2], [3], [4, 5]];
const waveOf = (n: number): number => WAVES.findIndex((w) => w.includes(n));

describe("write order", () => {
  test("the scenario plans every kind of write", () => {
    expect(plan0.requests.map((c) => [c.name, c.finalizer])).toEqual([
      ["a", "remove"],
      ["b", "add"],
    ]);
    expect(plan0.scale).toEqual({ request: "b", from: 5, replicas: 7 });
    expect(plan0.groupStatus).toBeDefined();
  });

  test("a finalizer before its status, statuses in plan order, the scale, then removals and the group", async () => {
    const e = await execute(s0, plan0);
    expect(e.outcome).toBe("done");
    expect(writesOf(e)).toEqual(CLEAN_WRITES);
    expect(replicasOf(e.after)).toBe(7);
    expect(e.after.requests.map((r) => [r.name, r.hasFinalizer, r.status.state])).toEqual([
      ["a", false, "SUCCEEDED"],
      ["b", true, "ACCEPTED"],
    ]);
    expect(e.groupStatus).toEqual(JSON.parse(JSON.stringify(plan0.groupStatus)));
    expect(e.emitted.map((x) => `${x.regarding.name}:${x.reason}`)).toEqual([
      "a:Succeeded",
      // b is admitted and started in this plan: one event tells both.
      "b:ProvisioningStarted",
    ]);
  });

  test("no extra API round trip: the scale is written under the Scale read while observing", async () => {
    const e = await execute(s0, plan0);
    // Observing: the target and its Scale (discovery is cached). Execution: writes only, no re-read.
    expect(e.fake.calls.filter((c) => !isWrite(c)).map(label)).toEqual([
      "get deployments workers",
      "get deployments/scale workers",
    ]);
  });
});

describe("conflicts end the pass, with nothing after them written", () => {
  async function prepared(s: GroupSnapshot) {
    const fake = clusterOf(s);
    const scale = new ScaleClient(fake);
    const objects = await objectsOf(fake, s, scale);
    const recorder = new RecordingRecorder();
    return {
      fake,
      scale,
      objects,
      recorder,
      run: (plan: Plan) => executePlan({ client: fake, scale, recorder }, objects, plan),
    };
  }

  test("a request changed since it was observed (stale resourceVersion): conflict before the scale", async () => {
    const p = await prepared(s0);
    await p.fake
      .resource(RESIZE_REQUESTS)
      .mergePatch({ namespace: s0.namespace, name: "b" }, { metadata: { labels: { x: "y" } } });
    expect(await p.run(plan0)).toBe("conflict");
    const after = snapshotOf(p.fake, s0);
    expect(replicasOf(after)).toBe(5);
    // The finalizer patch of b was the conflicting write: nothing of b landed and nothing was scaled;
    // a's resolution, sent alongside, landed with its event (a resolution needs no finalizer).
    expect(after.requests.find((r) => r.name === "b")?.status).toEqual(
      s0.requests.find((r) => r.name === "b")?.status,
    );
    expect(after.requests.find((r) => r.name === "a")?.status.state).toBe("SUCCEEDED");
    expect(p.recorder.emitted.map((x) => `${x.regarding.name}:${x.reason}`)).toEqual(["a:Succeeded"]);
  });

  test("a request deleted since it was observed: conflict", async () => {
    const p = await prepared(s0);
    await p.fake.resource(RESIZE_REQUESTS).delete({ namespace: s0.namespace, name: "b" });
    expect(await p.run(plan0)).toBe("conflict");
    expect(replicasOf(snapshotOf(p.fake, s0))).toBe(5);
  });

  const scalesOf = (p: { fake: Executed["fake"] }) => p.fake.resource(scaleOf(targetLocation("Deployment")));
  const key = { namespace: s0.namespace, name: "workers" };

  test("the target's replicas moved since the observation: no scale, conflict", async () => {
    const p = await prepared(s0);
    const current = await scalesOf(p).get(key);
    await scalesOf(p).update({ ...current, spec: { replicas: 6 } });
    expect(await p.run(plan0)).toBe("conflict");
    expect(replicasOf(snapshotOf(p.fake, s0))).toBe(6);
    // The records before the scale landed, so their events are emitted; the group is not written.
    expect(p.recorder.emitted.map((x) => x.reason)).toEqual(["Succeeded", "ProvisioningStarted"]);
    expect(p.fake.writes().map(label)).not.toContain("updateStatus instancegroupmanagers pool");
  });

  test("the target changed but kept its replicas: read once more, then scaled", async () => {
    const p = await prepared(s0);
    const current = await scalesOf(p).get(key);
    await scalesOf(p).update(current); // a new resourceVersion, same replicas
    const reads = p.fake.calls.length;
    expect(await p.run(plan0)).toBe("done");
    expect(replicasOf(snapshotOf(p.fake, s0))).toBe(7);
    expect(p.fake.calls.slice(reads).map(label)).toContain("get deployments/scale workers");
  });

  test("a scale whose record was written in an earlier pass is checked against the server's copy", async () => {
    // b's record (5 -> 7) landed before a crash; the scale did not.
    const cut = await execute(s0, plan0, { dropScale: true });
    expect(cut.outcome).toBe("crashed");
    const s1 = { ...cut.after, nowMs: T0 + SEC };
    const plan1 = decide(s1);
    expect(plan1.scale).toEqual({ request: "b", from: 5, replicas: 7 });
    expect(plan1.requests.find((c) => c.name === "b")?.status).toBeUndefined();

    const p = await prepared(s1);
    const e = await p.run(plan1);
    expect(e).toBe("done");
    expect(p.fake.calls.map(label)).toContain("get resizerequests b");
    expect(replicasOf(snapshotOf(p.fake, s1))).toBe(7);

    // The same, but someone replaced b's record meanwhile: the server's copy no longer calls for it.
    const q = await prepared(s1);
    const rr = await q.fake.resource(RESIZE_REQUESTS).get({ namespace: s1.namespace, name: "b" });
    await q.fake
      .resource(RESIZE_REQUESTS)
      .updateStatus({ ...rr, status: { ...rr.status, provisioning: undefined } });
    expect(await q.run(plan1)).toBe("conflict");
    expect(replicasOf(snapshotOf(q.fake, s1))).toBe(5);
  });

  test("any other failure is thrown, after the events of what landed", async () => {
    const p = await prepared(s0);
    p.fake.inject({
      match: (c) => c.resource === INSTANCE_GROUP_MANAGERS.resource,
      when: "before",
      error: () => new ApiError(500, "InternalError", "etcd is down"),
    });
    await expect(p.run(plan0)).rejects.toThrow("etcd is down");
    expect(p.recorder.emitted).toHaveLength(2);
    expect(replicasOf(snapshotOf(p.fake, s0))).toBe(7);
  });
});

describe("a crash at every write, before it lands or right after", () => {
  const clean: Promise<DriveResult> = drive(s0);
  const points = CLEAN_WRITES.flatMap((write, n) => [
    { n, write, when: "before" as const },
    { n, write, when: "after" as const },
  ]);

  test.each(points)("crash $when write $n ($write)", async ({ n, when }) => {
    const fake = clusterOf(s0);
    const scale = new ScaleClient(fake);
    const objects = await objectsOf(fake, s0, scale);
    fake.inject({ match: isWrite, nth: n, when, error: (c) => new CrashError(c) });
    const recorder = new RecordingRecorder();
    await expect(executePlan({ client: fake, scale, recorder }, objects, plan0)).rejects.toBeInstanceOf(
      CrashError,
    );

    // Exactly the writes of the waves up to the crashing one were attempted, in order; the crashing
    // write landed only "after", the others of its wave landed.
    const wave = waveOf(n);
    const attempted = CLEAN_WRITES.filter((_, i) => waveOf(i) <= wave);
    expect(fake.writes().map(label)).toEqual(attempted);
    const landed = new Set(
      CLEAN_WRITES.map((_, i) => i).filter((i) => waveOf(i) <= wave && (i !== n || when === "after")),
    );
    const scaled = landed.has(CLEAN_WRITES.indexOf("update deployments/scale workers"));
    const left = snapshotOf(fake, s0);
    expect(replicasOf(left)).toBe(scaled ? 7 : 5);
    // Events only for records the executor saw land (one that landed as it crashed has none).
    const recorded = new Set(
      CLEAN_WRITES.filter(
        (w, i) => landed.has(i) && i !== n && w.startsWith("updateStatus resizerequests"),
      ).map((w) => w.at(-1)),
    );
    expect(new Set(recorder.emitted.map((x) => x.regarding.name))).toEqual(recorded);

    // Deciding again from what was left converges to the uncut run, each increase applied once.
    const resumed = await drive({ ...left, nowMs: T0 + SEC });
    const reference = await clean;
    expect(resumed.violations).toEqual([]);
    expect(resumed.quiet).toBe(true);
    expect((scaled ? 1 : 0) + resumed.applied.filter((x) => x.request === "b").length).toBe(1);
    expect(replicasOf(resumed.final)).toBe(replicasOf(reference.final));
    expect(resumed.final.requests.map((r) => [r.name, r.status.state, r.hasFinalizer])).toEqual(
      reference.final.requests.map((r) => [r.name, r.status.state, r.hasFinalizer]),
    );
  });

  test("a conflict reported for a write that landed (a lost reply): the pass ends, the next starts from what landed", async () => {
    const fake = clusterOf(s0);
    const scale = new ScaleClient(fake);
    const objects = await objectsOf(fake, s0, scale);
    fake.inject({
      match: (c) => c.verb === "updateStatus" && c.name === "a",
      when: "after",
      error: conflictError,
    });
    const outcome = await executePlan(
      { client: fake, scale, recorder: new RecordingRecorder() },
      objects,
      plan0,
    );
    expect(outcome).toBe("conflict");
    const left = snapshotOf(fake, s0);
    expect(left.requests.find((r) => r.name === "a")?.status.state).toBe("SUCCEEDED");
    expect(left.requests.find((r) => r.name === "b")?.hasFinalizer).toBe(true);
    expect(replicasOf(left)).toBe(5);
    expect(left.requests.find((r) => r.name === "a")?.hasFinalizer).toBe(true);
  });
});

describe("a refused target: the group's Event goes with the group's status", () => {
  const refused = snap({ target: { found: false, reason: "TargetForbidden", message: "may not get it" } });
  const plan = decide(refused);

  test("the status written, one Warning Event regarding the group", async () => {
    const e = await execute(refused, plan);
    expect(e.groupStatus?.conditions?.map((c) => c.reason)).toEqual(["TargetForbidden"]);
    expect(e.emitted.map((x) => [x.type, x.reason, x.note, x.regarding.kind, x.regarding.name])).toEqual([
      ["Warning", "TargetForbidden", "may not get it", "InstanceGroupManager", refused.groupName],
    ]);
  });

  test("the group's status write lost: no Event (the next pass tells it)", async () => {
    const fake = clusterOf(refused);
    const scale = new ScaleClient(fake);
    const objects = await objectsOf(fake, refused, scale);
    fake.inject({
      match: (c) => c.verb === "updateStatus" && c.resource === INSTANCE_GROUP_MANAGERS.resource,
      when: "before",
      error: conflictError,
    });
    const recorder = new RecordingRecorder();
    expect(await executePlan({ client: fake, scale, recorder }, objects, plan)).toBe("conflict");
    expect(recorder.emitted).toEqual([]);
  });
});
