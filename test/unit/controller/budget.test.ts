// The API calls and Events the throughput flow costs per ResizeRequest (the API server is what every
// tenant shares): a group with 10 new requests of 1 instance each, its target ready the moment it is
// scaled, driven to the end with the real executor against the fake API server (builders.drive). The
// floor — the minimal crash-safe writes — is 3 status writes (admitted, the attempt's record before
// its scale, succeeded), the finalizer's addition and removal, and 1 scale; a request whose admission
// and attempt start fall in one pass gets one status write and one Event for both.
import { drive, req, snap, MIN, SEC, T0, type DriveResult } from "./builders.js";

const N = 10;

interface Calls {
  status: number;
  finalizer: number;
  scale: number;
  events: string[];
}

function callsPerRequest(r: DriveResult): Map<string, Calls> {
  const calls = new Map<string, Calls>();
  const of = (name: string): Calls => {
    const c = calls.get(name) ?? { status: 0, finalizer: 0, scale: 0, events: [] };
    calls.set(name, c);
    return c;
  };
  for (const { plan } of r.steps) {
    for (const change of plan.requests) {
      if (change.status) of(change.name).status++;
      if (change.finalizer) of(change.name).finalizer++;
    }
    if (plan.scale) of(plan.scale.request).scale++;
    for (const e of plan.events) of(e.request).events.push(e.event.reason);
  }
  return calls;
}

const flow = await drive(
  snap({
    replicas: 0,
    requests: Array.from({ length: N }, (_, i) => req(`r${i}`, { resizeBy: 1, created: T0 - MIN + i * SEC })),
  }),
  { readyAtOnce: true },
);
const calls = callsPerRequest(flow);

test("the flow ends with every request SUCCEEDED, in FIFO order, one instance each", () => {
  expect(flow.violations).toEqual([]);
  expect(flow.quiet).toBe(true);
  expect(flow.final.requests.map((r) => r.status.state)).toEqual(Array(N).fill("SUCCEEDED"));
  expect(flow.applied.map((a) => a.replicas)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
});

test("the first request: admission and attempt in one write and one Event, then success", () => {
  expect(calls.get("r0")).toEqual({
    status: 2,
    finalizer: 2,
    scale: 1,
    events: ["ProvisioningStarted", "Succeeded"],
  });
  const started = flow.steps[0]?.plan.events.find((e) => e.request === "r0");
  expect(started?.note).toMatch(/^Admitted to the queue of group pool for 1 instances\. Attempt 1: raising/);
});

test("every queued request: one status write and one Event per state change (floor: 3 writes)", () => {
  for (let i = 1; i < N; i++)
    expect(calls.get(`r${i}`)).toEqual({
      status: 3,
      finalizer: 2,
      scale: 1,
      events: ["Accepted", "ProvisioningStarted", "Succeeded"],
    });
});

test("per request: 2.9 status writes, 2.9 Events, 1 scale; the group's status at most once per pass", () => {
  const total = (pick: (c: Calls) => number) => [...calls.values()].reduce((sum, c) => sum + pick(c), 0) / N;
  expect(total((c) => c.status)).toBe(2.9);
  expect(total((c) => c.events.length)).toBe(2.9);
  expect(total((c) => c.scale)).toBe(1);
  // Each pass changes what `kubectl get igm` shows (targetSize, readyInstances, queuedRequests,
  // activeRequests, provisioningRequest): one write per pass that moved the queue, none when quiet.
  const groupWrites = flow.steps.filter((st) => st.plan.groupStatus !== undefined).length;
  const moved = flow.steps.filter((st) => st.plan.requests.length > 0).length;
  expect(groupWrites).toBe(moved);
  expect(groupWrites / N).toBe(1.1);
});
