// The queue model (queueInsight) and the decision (decide) read one state the same way: for random
// groups, queues, backoffs, attempts in flight and releases due or under way, the model says the head
// is Starting exactly when decide() starts its attempt, and nothing the model says waits (Capacity,
// Backoff, BehindHead, ...) gets one. Both import their rules from src/queue/rules.ts; this holds
// them to it (docs/architecture.md "Where behaviour lives").
import fc from "fast-check";
import type { ResizeRequestStatus } from "../../../src/api/resize-request.js";
import { decide } from "../../../src/controllers/resize/decide/index.js";
import type { GroupSnapshot } from "../../../src/controllers/resize/snapshot.js";
import type { RequestView } from "../../../src/cache/request-view.js";
import { queueInsight } from "../../../src/queue/insight.js";
import { releaseLowers, releaseTarget } from "../../../src/queue/rules.js";
import {
  MIN,
  SEC,
  T0,
  acceptedAt,
  changeOf,
  group,
  iso,
  req,
  snap,
  startedIn,
} from "../controller/builders.js";
import { queueInputOf, succeeded } from "./snapshot-input.js";

type ReleaseKind = "none" | "future" | "due" | "applying";
type Backoff = "none" | "passed" | "future";
type AttemptKind = "none" | "applying" | "applied";

interface Holder {
  readonly size: number;
  readonly release: ReleaseKind;
}
interface Waiting {
  readonly size: number;
  readonly backoff: Backoff;
  /** Its last attempt failed on Unschedulable pods (with a backoff, passed or not). */
  readonly unschedulable: boolean;
  readonly creating: boolean;
}
interface QueueState {
  readonly maxSize: number | undefined;
  readonly minSize: number;
  readonly replicas: number;
  readonly holders: readonly Holder[];
  readonly queue: readonly Waiting[];
  readonly attempt: AttemptKind;
}

const queueState: fc.Arbitrary<QueueState> = fc
  .option(fc.integer({ min: 1, max: 12 }), { nil: undefined })
  .chain((maxSize) => {
    const top = maxSize ?? 12;
    const size = fc.integer({ min: 1, max: Math.min(top, 6) });
    return fc.record({
      maxSize: fc.constant(maxSize),
      minSize: fc.integer({ min: 0, max: Math.min(top, 6) }),
      replicas: fc.integer({ min: 0, max: top + 1 }),
      holders: fc.array(
        fc.record({ size, release: fc.constantFrom<ReleaseKind>("none", "future", "due", "applying") }),
        { maxLength: 3 },
      ),
      queue: fc.array(
        fc.record({
          size,
          backoff: fc.constantFrom<Backoff>("none", "none", "passed", "future"),
          unschedulable: fc.boolean(),
          creating: fc.boolean(),
        }),
        { minLength: 1, maxLength: 5 },
      ),
      attempt: fc.constantFrom<AttemptKind>("none", "none", "applying", "applied"),
    });
  });

const UNSCHEDULABLE = {
  errors: [{ code: "ZONE_RESOURCE_POOL_EXHAUSTED", message: "0/4 nodes are available: 4 Insufficient cpu" }],
};

const DONE: RequestView = succeeded("done", {
  created: T0 - 60 * MIN,
  size: 2,
  succeeded: T0 - 50 * MIN,
  tookMs: 30 * SEC,
});

/** The state as decide() sees it: one group, its requests, its target at `replicas`. */
function snapshotOf(st: QueueState): GroupSnapshot {
  const head = st.queue[0];
  const attempt = head && !head.creating ? st.attempt : "none";
  // One change at a time: with an attempt in flight, or a release under way, another release is only due.
  let applying = attempt !== "none";
  const holders = st.holders.map((h, i): RequestView => {
    const name = `held-${i}`;
    const created = T0 - 40 * MIN + i * SEC;
    // A release is recorded only when it lowers the replicas (at the floor it ends at once).
    const lowers = releaseLowers(st.replicas, h.size, st.minSize);
    const release: ReleaseKind = h.release === "applying" && (applying || !lowers) ? "due" : h.release;
    if (release === "applying") applying = true;
    return succeeded(name, {
      created,
      size: h.size,
      succeeded: T0 - 30 * MIN,
      tookMs: 30 * SEC,
      ...(release !== "none" && { runUntil: release === "future" ? T0 + 30 * SEC : T0 - 5 * SEC }),
      ...(release === "applying" && {
        release: {
          phase: "Applying",
          baseReplicas: st.replicas,
          targetReplicas: releaseTarget(st.replicas, h.size, st.minSize),
          startedTime: iso(T0 - 5 * SEC),
        },
      }),
    });
  });
  // An attempt Applied has raised the target and waits for its instances; one Applying has not yet.
  const raised = attempt === "applied" && head ? st.replicas + head.size : st.replicas;
  const queue = st.queue.map((w, i): RequestView => {
    const name = `q-${i}`;
    const created = T0 - 20 * MIN + i * SEC;
    if (w.creating) return req(name, { created, resizeBy: w.size });
    const backoff: ResizeRequestStatus =
      w.backoff === "none"
        ? {}
        : {
            attempts: 1,
            nextAttemptTime: iso(w.backoff === "future" ? T0 + 20 * SEC : T0 - SEC),
            ...(w.unschedulable && { lastAttempt: { error: UNSCHEDULABLE } }),
          };
    const inFlight: ResizeRequestStatus =
      i === 0 && attempt !== "none"
        ? {
            reason: "Provisioning",
            attempts: 1,
            provisioning: {
              attempt: 1,
              phase: attempt === "applied" ? "Applied" : "Applying",
              baseReplicas: st.replicas,
              targetReplicas: st.replicas + w.size,
              startedTime: iso(T0 - 30 * SEC),
              deadline: iso(T0 + 9 * MIN),
              ...(attempt === "applied" && { appliedTime: iso(T0 - 29 * SEC) }),
            },
          }
        : {};
    return req(name, {
      created,
      resizeBy: w.size,
      status: acceptedAt(name, created, { ...backoff, ...inFlight }),
    });
  });
  return snap({
    group: group({ maxSize: st.maxSize, minSize: st.minSize }),
    replicas: raised,
    // Not all ready while an attempt is Applied (it keeps waiting); settled otherwise.
    ready: attempt === "applied" ? raised - 1 : raised,
    requests: [DONE, ...holders, ...queue],
  });
}

describe("the queue model and decide() agree on the head (random groups and queues)", () => {
  test("Starting exactly when decide() starts the head's attempt; a request that waits gets none", () => {
    fc.assert(
      fc.property(queueState, (st) => {
        const s = snapshotOf(st);
        const plan = decide(s);
        const model = queueInsight(queueInputOf(s));
        const started = startedIn(s, plan).filter(
          (name) => changeOf(plan, name)?.status?.provisioning !== undefined,
        );
        const head = model.head;
        expect(head).toBeDefined();
        // A head whose last attempt failed on Unschedulable pods is retried once its backoff passed; the
        // model names that cause (ETA unknown) instead of Starting: the one other kind that starts.
        const w = head?.waitingFor;
        const starting = w?.kind === "Starting" || (w?.kind === "Unschedulable" && w.until === undefined);
        expect({ head: head?.name, waits: head?.waitingFor.kind, started }).toEqual({
          head: head?.name,
          waits: head?.waitingFor.kind,
          started: starting && head ? [head.name] : [],
        });
        for (const r of model.requests) if (r !== head || !starting) expect(started).not.toContain(r.name);
      }),
      { numRuns: 400 },
    );
  });
});

describe("a release that changes the target goes before the head's attempt (found by the property above)", () => {
  const base: QueueState = {
    maxSize: 11,
    minSize: 0,
    replicas: 1,
    holders: [{ size: 1, release: "applying" }],
    queue: [{ size: 1, backoff: "none", unschedulable: false, creating: false }],
    attempt: "none",
  };
  test.each([
    { name: "a release recorded and not applied yet", holder: { size: 1, release: "applying" as const } },
    { name: "a release due now that lowers the replicas", holder: { size: 1, release: "due" as const } },
  ])("$name: the head waits for it (Release), and decide() applies the release only", ({ holder }) => {
    const s = snapshotOf({ ...base, holders: [holder] });
    const plan = decide(s);
    expect(plan.scale).toEqual({ request: "held-0", from: 1, replicas: 0 });
    expect(queueInsight(queueInputOf(s)).head?.waitingFor).toEqual({ kind: "Release", request: "held-0" });
  });

  test("at the minSize floor a due release removes nothing: the head starts in the same pass", () => {
    const s = snapshotOf({ ...base, minSize: 1, holders: [{ size: 1, release: "due" }] });
    expect(decide(s).scale).toEqual({ request: "q-0", from: 1, replicas: 2 });
    expect(queueInsight(queueInputOf(s)).head?.waitingFor).toEqual({ kind: "Starting" });
  });
});

describe("releaseTarget", () => {
  test.each([
    [5, 2, 0, 3],
    [5, 2, 4, 4],
    [3, 2, 4, 3], // below minSize already: a release removes nothing, and never adds
    [1, 1, 2, 1],
  ])("from %i releasing %i with minSize %i leaves %i", (replicas, size, minSize, expected) => {
    expect(releaseTarget(replicas, size, minSize)).toBe(expected);
    expect(releaseLowers(replicas, size, minSize)).toBe(expected < replicas);
  });
});
