// capacitySearchStrategy OBTAINABILITY: among the groups the request may use, the one whose queue
// gives its ResizeRequest the earliest ETA (the queue model run with the request added at the back).
import fc from "fast-check";
import type { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import type { ResizeRequest, ResizeRequestStatus } from "../../../src/api/resize-request.js";
import { decideProvisioning } from "../../../src/controllers/provisioning/decide.js";
import type { CachedQueue } from "../../../src/cache/group-queue.js";
import { earliest, etaIfQueued, queuedEta } from "../../../src/controllers/provisioning/obtainability.js";
import { place, type PlacementInput } from "../../../src/controllers/provisioning/placement.js";
import type { Eta } from "../../../src/queue/insight.js";
import { T0, at, gpuPod, group, pr, rr, snapshot } from "./fixtures.js";

const NOW = T0 + 60_000;
const keyOf = (g: InstanceGroupManager) => `${g.metadata.namespace ?? ""}/${g.metadata.name ?? ""}`;

/** A request of the group that succeeded after a 30 s attempt (the queue model's attempt history). */
const done = (name: string, size: number, o: Partial<ResizeRequestStatus> = {}): ResizeRequest =>
  rr(
    { state: "SUCCEEDED", attempts: 1, provisioningStartedTime: at(-100), succeededTime: at(-70), ...o },
    { name, size },
  );
const waiting = (name: string, size: number): ResizeRequest => rr({ state: "ACCEPTED" }, { name, size });

/** A group's queue: its target holds `replicas`, of which `held` free at `runUntil` seconds after T0. */
const queueOf = (o: {
  replicas: number;
  held?: number;
  runUntil?: number;
  ahead?: number[];
}): CachedQueue => ({
  target: { replicas: o.replicas, readyReplicas: o.replicas },
  requests: [
    done("history", 1),
    ...(o.held ? [done("holder", o.held, { runUntil: at(o.runUntil ?? 0) })] : []),
    ...(o.ahead ?? []).map((size, i) => waiting(`ahead-${i}`, size)),
  ],
});
const groups = (...names: string[]) => names.map((n) => group(n, "team-a", { maxSize: 8 }));

const input = (gs: InstanceGroupManager[], queues: Map<string, CachedQueue>): PlacementInput => ({
  namespace: "team-a",
  namespaceLabels: undefined,
  parameters: { capacitySearchStrategy: "OBTAINABILITY" },
  podSets: [{ name: "main", count: 4, spec: gpuPod(8) }],
  groups: gs,
  etaOf: queuedEta(pr(), {}, queues, NOW),
});

test.each<[string, Eta[], number | undefined]>([
  ["none", [], undefined],
  [
    "the earlier of two exact",
    [
      { basis: "exact", start: 0, time: 20 },
      { basis: "exact", start: 0, time: 10 },
    ],
    1,
  ],
  [
    "a tie keeps the default order",
    [
      { basis: "exact", start: 0, time: 10 },
      { basis: "estimated", start: 0, time: 10 },
    ],
    0,
  ],
  [
    "an estimate beats a later exact ETA",
    [
      { basis: "exact", start: 0, time: 20 },
      { basis: "estimated", start: 0, time: 15 },
    ],
    1,
  ],
  [
    "a known ETA beats an unknown one",
    [
      { basis: "unknown", reason: "?" },
      { basis: "estimated", start: 0, time: 99 },
    ],
    1,
  ],
  [
    "all unknown: the first",
    [
      { basis: "unknown", reason: "a" },
      { basis: "unknown", reason: "b" },
    ],
    0,
  ],
])("earliest: %s", (_, etas, chosen) => {
  expect(earliest(etas.map((eta, option) => ({ option, eta })))).toBe(chosen);
});

test("the group whose queue frees first is chosen, not the first in the default order", () => {
  const [a, b] = groups("a-busy", "b-free");
  if (!a || !b) throw new Error("groups");
  // a: full (8 of 8) until its holder's release 30 minutes on; b: room for the request now.
  const queues = new Map([
    [keyOf(a), queueOf({ replicas: 8, held: 8, runUntil: 1800 })],
    [keyOf(b), queueOf({ replicas: 2 })],
  ]);
  const got = place(input([a, b], queues));
  expect(got).toMatchObject({
    ok: true,
    group: { metadata: { name: "b-free" } },
    instances: 4,
    competing: 2,
  });
  // The ETAs themselves: b starts now and takes its usual 30 s; a waits for the release.
  expect(etaIfQueued(b, queues.get(keyOf(b)), rr(undefined, { name: "new", size: 4 }), NOW)).toEqual({
    basis: "exact",
    start: NOW,
    time: NOW + 30_000,
  });
  expect(etaIfQueued(a, queues.get(keyOf(a)), rr(undefined, { name: "new", size: 4 }), NOW)).toMatchObject({
    basis: "exact",
    start: T0 + 1_800_000,
  });
  // Without the strategy, the default order decides: a.
  expect(place({ ...input([a, b], queues), parameters: {} })).toMatchObject({
    ok: true,
    group: { metadata: { name: "a-busy" } },
  });
});

test("a group that cannot take the request (its maxSize) does not compete; with none able, the first one's refusal", () => {
  const small = group("a-small", "team-a", { maxSize: 2 });
  const [big] = groups("b-big");
  if (!big) throw new Error("groups");
  const queues = new Map([
    [keyOf(small), queueOf({ replicas: 0 })],
    [keyOf(big), queueOf({ replicas: 8, held: 8, runUntil: 3600 })],
  ]);
  expect(place(input([small, big], queues))).toMatchObject({
    ok: true,
    group: { metadata: { name: "b-big" } },
  });
  expect(place(input([small], queues))).toMatchObject({ ok: false, reason: "NodepoolSizeReached" });
});

test("decideProvisioning places by the snapshot's queues: the ResizeRequest goes to the group with the earliest ETA", () => {
  const [a, b] = groups("a-busy", "b-free");
  if (!a || !b) throw new Error("groups");
  const plan = decideProvisioning(
    snapshot({
      request: pr({ parameters: { capacitySearchStrategy: "OBTAINABILITY" } }),
      groups: [a, b],
      queues: new Map([
        [keyOf(a), queueOf({ replicas: 8, held: 8, runUntil: 1800 })],
        [keyOf(b), queueOf({ replicas: 0, ahead: [4] })],
      ]),
    }),
  );
  expect(plan.create?.spec.instanceGroupManager).toBe("b-free");
  expect(plan.status?.conditions.find((c) => c.type === "Accepted")?.message).toContain(
    "Chosen by capacitySearchStrategy OBTAINABILITY: the earliest ETA of 2 groups.",
  );
  expect(plan.status?.provisioningClassDetails).toMatchObject({ InstanceGroupManager: "team-a/b-free" });
});

test("property: the chosen group's ETA is at most every other eligible group's", () => {
  const queueArb = fc.record({
    replicas: fc.integer({ min: 0, max: 8 }),
    held: fc.integer({ min: 0, max: 8 }),
    runUntil: fc.integer({ min: 0, max: 7200 }),
    ahead: fc.array(fc.integer({ min: 1, max: 8 }), { maxLength: 3 }),
    maxSize: fc.integer({ min: 2, max: 16 }),
  });
  fc.assert(
    fc.property(fc.array(queueArb, { minLength: 1, maxLength: 5 }), (specs) => {
      const gs = specs.map((s, i) => group(`g${i}`, "team-a", { maxSize: s.maxSize }));
      const queues = new Map(
        gs.map((g, i) => {
          const s = specs[i];
          if (!s) throw new Error("spec");
          const held = Math.min(s.held, s.replicas);
          return [keyOf(g), queueOf({ replicas: s.replicas, held, runUntil: s.runUntil, ahead: s.ahead })];
        }),
      );
      const got = place(input(gs, queues));
      const etaOf = queuedEta(pr(), {}, queues, NOW);
      const eligible = gs.filter((g) => (g.spec.maxSize ?? 0) >= 4);
      if (eligible.length === 0) return !got.ok;
      if (!got.ok) return false;
      const chosen = etaOf(got.group, 4);
      return eligible.every((g) => {
        const other = etaOf(g, 4);
        if (other.basis === "unknown") return true;
        return chosen.basis !== "unknown" && chosen.time <= other.time;
      });
    }),
    { numRuns: 300 },
  );
});
