// A booking delivered on the real Karpenter (testbed/karpenter.ts, its kwok provider): a group over a
// static NodePool, counted from the pool's Nodes. A FutureReservation of 2 is APPROVED, its delivery
// request fr-<booking> gets 2 Ready Nodes labelled with its name (what workloads select, docs/booking.md
// "Using the booked instances"), the booking is FULFILLED, and at the window's end exactly those Nodes
// go and the booking gets Ended=True. When the Nodes were Ready against the window's start is reported.
import * as k8s from "@kubernetes/client-node";
import type { FutureReservation } from "../../../src/api/future-reservation.js";
import { REQUEST_LABEL, REQUEST_NAMESPACE_LABEL } from "../../../src/api/instance-labels.js";
import { FUTURE_RESERVATION, GROUP, VERSION } from "../../../src/api/names.js";
import { rfc3339 } from "../../../src/api/time.js";
import { eventually, kubeConfig } from "../../support/kube.js";
import {
  isReadyNode,
  nodePoolGroup,
  poolReplicas,
  setUpKarpenterE2e,
  type KarpenterE2e,
} from "../../support/karpenter.js";
import { report } from "../../support/reliability.js";
import { createGroup, custom, getRequest } from "../../support/resize.js";
import { bookingApi as api, getBooking, untilEnded, untilSized } from "./support.js";

const core = kubeConfig().makeApiClient(k8s.CoreV1Api);
const POOL = "booking-pool";

let e2e: KarpenterE2e;

beforeAll(async () => {
  e2e = await setUpKarpenterE2e("booking-karpenter", {
    [POOL]: { instanceType: "cpu-32x", replicas: 0, maxNodes: 4 },
  });
}, 240_000);

afterAll(async () => {
  await e2e.tearDown();
}, 240_000);

const booking = (name: string): Promise<FutureReservation> => getBooking(e2e.namespace, name);

/** The Ready Nodes the delivery request `request` holds. */
async function ownNodes(request: string): Promise<k8s.V1Node[]> {
  const selector = `${REQUEST_LABEL}=${request},${REQUEST_NAMESPACE_LABEL}=${e2e.namespace}`;
  return (await core.listNode({ labelSelector: selector })).items.filter(isReadyNode);
}

test("a booking on a Karpenter NodePool: 2 Nodes labelled for it by its start, FULFILLED, gone at its end", async () => {
  const ns = e2e.namespace;
  await createGroup(ns, "pool", nodePoolGroup(POOL, { maxSize: 2 }));
  await untilSized(ns, "pool", 0);
  // No attempt to go by: the lead time is a minute, so delivery starts 30 s from now.
  const start = Date.now() + 90_000;
  const end = start + 30_000;
  await custom.createNamespacedCustomObject({
    ...api,
    namespace: ns,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: FUTURE_RESERVATION.kind,
      metadata: { name: "night" },
      spec: {
        instanceGroupManager: "pool",
        totalCount: 2,
        timeWindow: { startTime: rfc3339(start), endTime: rfc3339(end) },
      },
    },
  });
  const fulfilled = await eventually(
    "night FULFILLED",
    async () => {
      const fr = await booking("night");
      if (fr.status?.procurementStatus === "FAILED") throw new Error(fr.status.message);
      return fr.status?.procurementStatus === "FULFILLED" ? fr : undefined;
    },
    150_000,
  );
  const readyAt = Date.now();
  report("booking on Karpenter: delivery Ready relative to the window's start", {
    readyBeforeStartMs: start - readyAt,
  });
  expect(fulfilled.status?.message).toContain(`${REQUEST_LABEL}=fr-night`);
  expect(await ownNodes("fr-night")).toHaveLength(2);
  expect((await getRequest(ns, "fr-night")).status?.runUntil).toBe(rfc3339(end));

  const ended = await untilEnded(ns, "night", 120_000);
  expect(ended.status?.procurementStatus).toBe("FULFILLED");
  await eventually(
    "the booking's Nodes gone, the pool back at 0",
    async () =>
      (await ownNodes("fr-night")).length === 0 && (await poolReplicas(POOL)) === 0 ? true : undefined,
    120_000,
  );
}, 420_000);
