// What the booking tests share: reading a FutureReservation, waiting for a group's size to be known
// (a booking of a group without one waits: GroupNotReady), and for a booking's window to have ended.
import type { FutureReservation } from "../../../src/api/future-reservation.js";
import { FUTURE_RESERVATION, GROUP, INSTANCE_GROUP_MANAGER, VERSION } from "../../../src/api/names.js";
import { eventually } from "../../support/kube.js";
import { custom } from "../../support/resize.js";

export const bookingApi = { group: GROUP, version: VERSION, plural: FUTURE_RESERVATION.plural };

export const getBooking = async (namespace: string, name: string): Promise<FutureReservation> =>
  (await custom.getNamespacedCustomObject({ ...bookingApi, namespace, name })) as FutureReservation;

/** Waits until the group's status.targetSize is `size`. */
export const untilSized = (namespace: string, name: string, size: number): Promise<true> =>
  eventually(`group ${name} sized`, async () => {
    const g = (await custom.getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: INSTANCE_GROUP_MANAGER.plural,
      name,
    })) as { status?: { targetSize?: number } };
    return g.status?.targetSize === size ? true : undefined;
  });

/** Waits until the booking's condition Ended is True. */
export const untilEnded = (namespace: string, name: string, timeoutMs: number): Promise<FutureReservation> =>
  eventually(
    `${name} ended`,
    async () => {
      const fr = await getBooking(namespace, name);
      return fr.status?.conditions?.some((c) => c.type === "Ended" && c.status === "True") ? fr : undefined;
    },
    timeoutMs,
  );
