// FutureReservations on the real API server with the operator running: a group of maxSize 4 with a
// running request of 2 for 10 minutes; a booking of 3 is DECLINED naming the window after the release,
// one of 2 APPROVED, one of 1 overlapping it after the release APPROVED and one of 1 overlapping it
// while the request runs DECLINED; a cancel gives CANCELLED; an Event for each. Invalid specs are
// refused by the CRD with its messages. Delivery on a Deployment-backed group: the booking's pods are
// Ready by its start (FULFILLED), a queued request that would overlap its window waits naming it and
// runs after it, and the booking's instances go at its end (Ended).
import type { FutureReservation } from "../../../src/api/future-reservation.js";
import { FUTURE_RESERVATION, GROUP, VERSION } from "../../../src/api/names.js";
import { rfc3339 } from "../../../src/api/time.js";
import { installApi, kubectl, rejection } from "../api/install.js";
import { listEvents } from "../events/support.js";
import { createTestNamespace, eventually } from "../../support/kube.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { createDeployment, deployment } from "../../support/regional.js";
import { untilEnded, untilSized } from "./support.js";
import {
  core,
  createGroup,
  createRequest,
  createWorkers,
  custom,
  getRequest,
  replicasOf,
  untilState,
} from "../../support/resize.js";
import { FUTURE_RESERVATION_LABEL } from "../../../src/api/future-reservation.js";
import { REQUEST_LABEL } from "../../../src/api/instance-labels.js";

const MIN = 60_000;
let ns: Awaited<ReturnType<typeof createTestNamespace>>;
let operator: OperatorProcess;

type Json = Record<string, unknown>;
const api = { group: GROUP, version: VERSION, plural: FUTURE_RESERVATION.plural };
const window = (start: number, lengthMs: number): Json => ({
  startTime: rfc3339(start),
  duration: { seconds: String(lengthMs / 1000) },
});

const create = (name: string, spec: Json): Promise<unknown> =>
  custom.createNamespacedCustomObject({
    ...api,
    namespace: ns.name,
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: FUTURE_RESERVATION.kind, metadata: { name }, spec },
  });

const get = async (name: string): Promise<FutureReservation> =>
  (await custom.getNamespacedCustomObject({ ...api, namespace: ns.name, name })) as FutureReservation;

/** Waits until the booking's procurementStatus is `status`. */
const until = (name: string, status: string): Promise<FutureReservation> =>
  eventually(`${name} ${status}`, async () => {
    const fr = await get(name);
    return fr.status?.procurementStatus === status ? fr : undefined;
  });

const eventReasonsFor = async (name: string): Promise<string[]> =>
  (await listEvents(ns.name))
    .filter((e) => e.regarding?.kind === FUTURE_RESERVATION.kind && e.regarding.name === name)
    .map((e) => e.reason ?? "");

beforeAll(async () => {
  await installApi();
  await kubectl(
    "wait",
    "--for=condition=Established",
    "--timeout=60s",
    `crd/${FUTURE_RESERVATION.plural}.${GROUP}`,
  );
  ns = await createTestNamespace("booking");
  operator = startOperator({ namespace: ns.name, name: "booking-op" });
});
afterAll(async () => {
  await stopAll([operator]);
  await ns.remove();
});

test("bookings are approved only with room for the whole window, declined naming the earliest that fits, and cancelled", async () => {
  await createWorkers(ns.name, "pool");
  await createGroup(ns.name, "pool", { maxSize: 4 });
  await createRequest(ns.name, "running", {
    instanceGroupManager: "pool",
    resizeBy: 2,
    requestedRunDuration: { seconds: "600" },
  });
  const rr = await untilState(ns.name, "running", ["SUCCEEDED"], 120_000);
  const release = Date.parse(rr.status?.runUntil ?? "");
  const now = Date.now();

  await create("three", {
    instanceGroupManager: "pool",
    totalCount: 3,
    timeWindow: window(now + MIN, 5 * MIN),
  });
  const three = await until("three", "DECLINED");
  expect(three.status?.suggestedTimeWindow).toEqual({
    startTime: rfc3339(release),
    endTime: rfc3339(release + 5 * MIN),
  });
  expect(three.status?.message).toContain(
    `The earliest window of the same length that fits is ${rfc3339(release).replace(/\.\d{3}Z$/, "Z")}`,
  );
  expect(three.status?.conditions?.find((c) => c.type === "Approved")).toMatchObject({
    status: "False",
    reason: "InsufficientCapacity",
  });

  await create("two", {
    instanceGroupManager: "pool",
    totalCount: 2,
    timeWindow: window(now + MIN, 20 * MIN),
  });
  const two = await until("two", "APPROVED");
  expect(two.status?.endTime).toBe(rfc3339(now + 21 * MIN));

  // Overlaps "two" once the running request's instances are gone: 2 + 1 of 4.
  await create("after", {
    instanceGroupManager: "pool",
    totalCount: 1,
    timeWindow: { startTime: rfc3339(release + MIN), endTime: rfc3339(release + 6 * MIN) },
  });
  await until("after", "APPROVED");
  // Overlaps "two" while the request still runs: 2 + 2 + 1 of 4.
  await create("during", {
    instanceGroupManager: "pool",
    totalCount: 1,
    timeWindow: window(now + 2 * MIN, 2 * MIN),
  });
  await until("during", "DECLINED");

  await kubectl(
    "patch",
    "-n",
    ns.name,
    `${FUTURE_RESERVATION.singular}/two`,
    "--type=merge",
    "-p",
    '{"spec":{"cancel":true}}',
  );
  const cancelled = await until("two", "CANCELLED");
  expect(cancelled.status?.conditions?.find((c) => c.type === "Cancelled")?.status).toBe("True");

  await eventually("an Event per transition", async () => {
    const got = {
      three: await eventReasonsFor("three"),
      two: await eventReasonsFor("two"),
      after: await eventReasonsFor("after"),
      during: await eventReasonsFor("during"),
    };
    const want = {
      three: ["Declined"],
      two: ["Approved", "Cancelled"],
      after: ["Approved"],
      during: ["Declined"],
    };
    const sorted = (o: Record<string, string[]>) =>
      Object.fromEntries(Object.entries(o).map(([k, v]) => [k, [...v].sort()]));
    return JSON.stringify(sorted(got)) === JSON.stringify(sorted(want)) ? got : undefined;
  });

  const table = await kubectl("get", "fr", "-n", ns.name);
  expect(table).toMatch(/NAME\s+GROUP\s+COUNT\s+START\s+END\s+STATUS\s+AGE/);
  expect(table).toMatch(/after\s+pool\s+1\s+\S+\s+\S+\s+APPROVED/);
});

test("a booking for a group that does not exist waits, with a condition and an Event", async () => {
  await create("orphan", {
    instanceGroupManager: "nowhere",
    totalCount: 1,
    timeWindow: window(Date.now() + 10 * MIN, MIN),
  });
  const fr = await eventually("orphan waiting", async () => {
    const b = await get("orphan");
    return b.status?.conditions?.length ? b : undefined;
  });
  expect(fr.status?.procurementStatus).toBe("PENDING_APPROVAL");
  expect(fr.status?.conditions?.[0]).toMatchObject({
    type: "Approved",
    status: "Unknown",
    reason: "GroupNotFound",
  });
  await eventually("its Event", async () =>
    (await eventReasonsFor("orphan")).includes("WaitingForGroup") ? true : undefined,
  );
});

test.each([
  [
    "both endTime and duration",
    { ...window(Date.now() + MIN, MIN), endTime: rfc3339(Date.now() + 2 * MIN) },
    "exactly one of endTime and duration must be set",
  ],
  [
    "neither endTime nor duration",
    { startTime: rfc3339(Date.now() + MIN) },
    "exactly one of endTime and duration must be set",
  ],
  [
    "an end before the start",
    { startTime: rfc3339(Date.now() + 2 * MIN), endTime: rfc3339(Date.now() + MIN) },
    "endTime must be after startTime",
  ],
  [
    "a window over 90 days",
    { startTime: rfc3339(Date.now() + MIN), endTime: rfc3339(Date.now() + 91 * 24 * 60 * MIN) },
    "the window must last from 1s to 90 days (7776000s)",
  ],
  [
    "a duration over 90 days",
    { startTime: rfc3339(Date.now() + MIN), duration: { seconds: "7776001" } },
    "the window must last from 1s to 90 days (7776000s)",
  ],
  ["a start that is no time", { startTime: "tomorrow", duration: { seconds: "60" } }, "startTime"],
])("the CRD refuses %s", async (_, timeWindow, message) => {
  const refused = await rejection(create("bad", { instanceGroupManager: "pool", totalCount: 1, timeWindow }));
  expect(refused.code).toBe(422);
  expect(refused.message).toContain(message);
});

test("the CRD refuses a count under 1, and any change but cancel, which never goes back", async () => {
  const zero = await rejection(
    create("zero", {
      instanceGroupManager: "pool",
      totalCount: 0,
      timeWindow: window(Date.now() + MIN, MIN),
    }),
  );
  expect(zero.message).toContain("spec.totalCount");
  await create("fixed", {
    instanceGroupManager: "pool",
    totalCount: 1,
    timeWindow: window(Date.now() + 60 * MIN, MIN),
  });
  const change = await kubectl(
    "patch",
    "-n",
    ns.name,
    `${FUTURE_RESERVATION.singular}/fixed`,
    "--type=merge",
    "-p",
    '{"spec":{"totalCount":2}}',
  ).catch((err: unknown) => String(err));
  expect(change).toContain("totalCount is immutable: only cancel may change after creation");
  await kubectl(
    "patch",
    "-n",
    ns.name,
    `${FUTURE_RESERVATION.singular}/fixed`,
    "--type=merge",
    "-p",
    '{"spec":{"cancel":true}}',
  );
  const back = await kubectl(
    "patch",
    "-n",
    ns.name,
    `${FUTURE_RESERVATION.singular}/fixed`,
    "--type=merge",
    "-p",
    '{"spec":{"cancel":false}}',
  ).catch((err: unknown) => String(err));
  expect(back).toContain("cancel cannot be set back to false once it is true");
});

/** The Ready pods of the Deployment `app` carrying `selector`. */
async function readyPods(selector: string): Promise<string[]> {
  const pods = await core.listNamespacedPod({ namespace: ns.name, labelSelector: selector });
  return pods.items
    .filter((p) => !p.metadata?.deletionTimestamp)
    .filter((p) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"))
    .map((p) => p.metadata?.name ?? "");
}

test("a booking is delivered by its start, holds the queue back for its window, and its instances go at its end", async () => {
  await createDeployment(ns.name, "shop");
  await createGroup(ns.name, "shop", { maxSize: 2, targetRef: deployment("shop") });
  // Its size is known before the booking is decided (else it waits: GroupNotReady).
  await untilSized(ns.name, "shop", 0);
  // The group has no attempt to go by: the lead time is a minute, so delivery starts 15 s from now.
  const start = Date.now() + 75_000;
  const end = start + 20_000;
  await create("sale", {
    instanceGroupManager: "shop",
    totalCount: 2,
    timeWindow: { startTime: rfc3339(start), endTime: rfc3339(end) },
  });
  await until("sale", "APPROVED");

  // One instance for ever would overlap the window: 1 + 2 booked > maxSize 2. It waits, naming the booking.
  await createRequest(ns.name, "walk-in", { instanceGroupManager: "shop", resizeBy: 1 });
  const waiting = await eventually("walk-in waits for the booking", async () => {
    const rr = await getRequest(ns.name, "walk-in");
    return rr.status?.reason === "WaitingForFutureReservation" ? rr : undefined;
  });
  const queued = waiting.status?.conditions?.find((c) => c.type === "Queued");
  expect(queued?.message).toContain("Waiting for FutureReservation sale until");

  // Delivery: fr-sale, labelled with the booking, for 2 instances; its pods Ready before the start.
  const fulfilled = await until("sale", "FULFILLED");
  expect(Date.now()).toBeLessThan(start);
  expect(fulfilled.status?.conditions?.find((c) => c.type === "Delivered")).toMatchObject({
    status: "True",
    reason: "Fulfilled",
  });
  const delivery = await getRequest(ns.name, "fr-sale");
  expect(delivery.metadata.labels?.[FUTURE_RESERVATION_LABEL]).toBe("sale");
  expect(delivery.spec.resizeBy).toBe(2);
  expect(delivery.status?.runUntil).toBe(rfc3339(end));
  expect(await readyPods(`${REQUEST_LABEL}=fr-sale`)).toHaveLength(2);
  expect((await getRequest(ns.name, "walk-in")).status?.state).toBe("ACCEPTED");

  // The end: the booking's instances go, the booking says its window ended, and the walk-in runs.
  const ended = await untilEnded(ns.name, "sale", 90_000);
  expect(ended.status?.procurementStatus).toBe("FULFILLED");
  const walkIn = await untilState(ns.name, "walk-in", ["SUCCEEDED"], 60_000);
  expect(Date.parse(walkIn.status?.provisioningStartedTime ?? "")).toBeGreaterThanOrEqual(end - 1000);
  await eventually("the booking's pods gone", async () =>
    (await readyPods(`${REQUEST_LABEL}=fr-sale`)).length === 0 ? true : undefined,
  );
  await eventually("an Event per transition of the booking", async () => {
    const got = [...(await eventReasonsFor("sale"))].sort();
    const want = ["Approved", "Fulfilled", "Provisioning", "WindowEnded"];
    return JSON.stringify(got) === JSON.stringify(want) ? got : undefined;
  });
}, 240_000);

test("a stockout is retried until the window's start, then the booking FAILS and its request is cancelled, nothing left", async () => {
  // Pods asking for more GPUs than any node has: every attempt rolls back as a stockout at once.
  await createWorkers(ns.name, "scarce", 1000);
  await createGroup(ns.name, "scarce", {
    maxSize: 2,
    clusterAutoscaler: "None",
    unschedulableGracePeriod: "0s",
  });
  await untilSized(ns.name, "scarce", 0);
  const start = Date.now() + 20_000;
  await create("scarce-slot", {
    instanceGroupManager: "scarce",
    totalCount: 2,
    timeWindow: { startTime: rfc3339(start), endTime: rfc3339(start + 20_000) },
  });
  const failed = await until("scarce-slot", "FAILED").catch(async (err: unknown) => {
    // What the booking and its delivery said instead.
    const fr = await get("scarce-slot");
    const rr = await getRequest(ns.name, "fr-scarce-slot").catch(() => undefined);
    throw new Error(`${String(err)}: ${JSON.stringify({ booking: fr.status, delivery: rr?.status })}`);
  });
  expect(Date.now()).toBeGreaterThanOrEqual(start);
  expect(failed.status?.conditions?.find((c) => c.type === "Delivered")).toMatchObject({
    status: "False",
    reason: "NotDeliveredByStart",
  });
  expect(failed.status?.message).toContain("ZONE_RESOURCE_POOL_EXHAUSTED");
  const delivery = await untilState(ns.name, "fr-scarce-slot", ["CANCELLED"], 30_000);
  expect(delivery.status?.attempts).toBeGreaterThan(1);
  await eventually("nothing left: the StatefulSet back at 0", async () =>
    (await replicasOf(ns.name, "scarce")).replicas === 0 ? true : undefined,
  );
});
