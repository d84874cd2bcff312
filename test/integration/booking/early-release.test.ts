// Early release on the real API server with the operator running: a FULFILLED booking on a
// Deployment-backed group is cancelled well before its window's end; its delivery's pods go now, the
// pod of another request of the group stays, and the booking says so (CANCELLED, Ended=True with
// reason ReleasedOnCancel, an Event).
import { FUTURE_RESERVATION, GROUP, VERSION } from "../../../src/api/names.js";
import { REQUEST_LABEL } from "../../../src/api/instance-labels.js";
import { rfc3339 } from "../../../src/api/time.js";
import { installApi, kubectl } from "../api/install.js";
import { listEvents } from "../events/support.js";
import { createTestNamespace, eventually } from "../../support/kube.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { createDeployment, deployment } from "../../support/regional.js";
import { core, createGroup, createRequest, custom, getRequest, untilState } from "../../support/resize.js";
import { bookingApi, getBooking, untilEnded, untilSized } from "./support.js";

let ns: Awaited<ReturnType<typeof createTestNamespace>>;
let operator: OperatorProcess;

beforeAll(async () => {
  await installApi();
  await kubectl(
    "wait",
    "--for=condition=Established",
    "--timeout=60s",
    `crd/${FUTURE_RESERVATION.plural}.${GROUP}`,
  );
  ns = await createTestNamespace("early-release");
  operator = startOperator({ namespace: ns.name, name: "early-release-op" });
});
afterAll(async () => {
  await stopAll([operator]);
  await ns.remove();
});

/** The names of the live, Ready pods carrying `selector`. */
async function readyPods(selector: string): Promise<string[]> {
  const pods = await core.listNamespacedPod({ namespace: ns.name, labelSelector: selector });
  return pods.items
    .filter((p) => !p.metadata?.deletionTimestamp)
    .filter((p) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"))
    .map((p) => p.metadata?.name ?? "")
    .sort();
}

test("a FULFILLED booking cancelled before its window's end releases exactly its own pods now", async () => {
  await createDeployment(ns.name, "mart");
  await createGroup(ns.name, "mart", { maxSize: 3, targetRef: deployment("mart") });
  await untilSized(ns.name, "mart", 0);
  // Another request's instance, for ever: it must stay when the booking's go.
  await createRequest(ns.name, "resident", { instanceGroupManager: "mart", resizeBy: 1 });
  await untilState(ns.name, "resident", ["SUCCEEDED"], 60_000);
  const resident = await eventually("the resident's pod Ready", async () => {
    const pods = await readyPods(`${REQUEST_LABEL}=resident`);
    return pods.length === 1 ? pods : undefined;
  });

  // The group has a successful attempt now: the lead time is its floor (10 s), well inside these 25 s.
  const start = Date.now() + 25_000;
  const end = start + 10 * 60_000;
  await custom.createNamespacedCustomObject({
    ...bookingApi,
    namespace: ns.name,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: FUTURE_RESERVATION.kind,
      metadata: { name: "promo" },
      spec: {
        instanceGroupManager: "mart",
        totalCount: 2,
        timeWindow: { startTime: rfc3339(start), endTime: rfc3339(end) },
      },
    },
  });
  await eventually(
    "promo FULFILLED",
    async () =>
      (await getBooking(ns.name, "promo")).status?.procurementStatus === "FULFILLED" ? true : undefined,
    90_000,
  );
  const delivered = await eventually("the delivery's 2 pods Ready", async () => {
    const pods = await readyPods(`${REQUEST_LABEL}=fr-promo`);
    return pods.length === 2 ? pods : undefined;
  });
  expect((await getRequest(ns.name, "fr-promo")).status?.runUntil).toBe(rfc3339(end));

  await kubectl(
    "patch",
    "-n",
    ns.name,
    `${FUTURE_RESERVATION.singular}/promo`,
    "--type=merge",
    "-p",
    '{"spec":{"cancel":true}}',
  );
  const cancelled = await untilEnded(ns.name, "promo", 60_000);
  expect(cancelled.status?.procurementStatus).toBe("CANCELLED");
  expect(cancelled.status?.conditions?.find((c) => c.type === "Cancelled")?.status).toBe("True");
  expect(cancelled.status?.conditions?.find((c) => c.type === "Ended")).toMatchObject({
    status: "True",
    reason: "ReleasedOnCancel",
  });
  expect(cancelled.status?.message).toContain("ResizeRequest fr-promo's 2 instances are released now");

  // Its pods go now, long before the window's end; the resident's pod is the same one, still Ready.
  await eventually("the booking's pods gone", async () => {
    const live = await core.listNamespacedPod({
      namespace: ns.name,
      labelSelector: `${REQUEST_LABEL}=fr-promo`,
    });
    return live.items.length === 0 ? true : undefined;
  });
  expect(Date.now()).toBeLessThan(end);
  expect(await readyPods(`${REQUEST_LABEL}=resident`)).toEqual(resident);
  for (const pod of delivered)
    expect(
      await core.listNamespacedPod({ namespace: ns.name, fieldSelector: `metadata.name=${pod}` }),
    ).toMatchObject({
      items: [],
    });
  const release = await eventually("fr-promo's release applied", async () => {
    const rr = await getRequest(ns.name, "fr-promo");
    return rr.status?.release?.phase === "Applied" ? rr : undefined;
  });
  expect(release.status?.state).toBe("SUCCEEDED");
  expect(Date.parse(release.status?.runUntil ?? "")).toBeLessThan(end);
  expect(release.status?.release).toMatchObject({ baseReplicas: 3, targetReplicas: 1 });

  await eventually("an Event per transition of the booking", async () => {
    const got = (await listEvents(ns.name))
      .filter((e) => e.regarding?.kind === FUTURE_RESERVATION.kind && e.regarding.name === "promo")
      .map((e) => e.reason ?? "")
      .sort();
    const want = ["Approved", "Cancelled", "Fulfilled", "Provisioning", "ReleasedOnCancel"];
    return JSON.stringify(got) === JSON.stringify(want) ? got : undefined;
  });
}, 240_000);
