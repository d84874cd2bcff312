// The active requests of a group in FIFO order: cancel, admission, and the head's attempt (also right
// after the previous attempt resolved in this plan). Positions are not stored (a queue moving up would
// rewrite every request behind: n(n-1)/2 writes); readers compute them from the FIFO order.
import { deliveriesFirst } from "../../../queue/booking-wait.js";
import { headHold, nextAttemptAt, sizeOf } from "../../../queue/rules.js";
import { resizeEvents as E } from "../../events.js";
import { unsupportedNames } from "../../errors.js";
import { admit, INSTANCE_NAMES_REFUSED, namesNotNext, queueDeadline } from "./admission.js";
import { startAttempt } from "./attempt.js";
import { bookingWaitMessage, deliveryOfView, headBookingWait, WAITING_FOR_BOOKING } from "./bookings.js";
import type { GroupSnapshot } from "../snapshot.js";
import { busy, wake, type PlanDraft } from "./plan-draft.js";
import { cancelled, isFinal, wantsCancel } from "./readings.js";
import type { RequestDraft } from "./request-draft.js";

/**
 * Walks the waiting requests (`fifo` in FIFO order, those already handled left out), a booking's
 * delivery first (queue/booking-wait.ts deliveriesFirst).
 */
export function walkQueue(fifo: readonly RequestDraft[], s: GroupSnapshot, first: PlanDraft): PlanDraft {
  const cfg = s.config;
  let plan = first;
  let position = 0;
  for (const d of deliveriesFirst(fifo, (x) => deliveryOfView(x.view, s))) {
    if (isFinal(d.status)) continue;
    if (wantsCancel(d.view)) {
      d.finish("CANCELLED", "Cancelled", cancelled(d.view));
      d.emit(E.Cancelled, `${cancelled(d.view)} The request left the queue.`);
      continue;
    }
    const admission = admit(d, s, plan);
    plan = admission.plan;
    if (admission.verdict !== "failed") {
      const deadline = queueDeadline(d, s, plan);
      plan = deadline.plan;
      if (deadline.expired) continue;
    }
    if (admission.verdict !== "admitted") continue;
    position++;
    const target = s.target;
    const group = s.group;
    if (!group || !target?.found) continue;
    const k = sizeOf(d.view);
    const nextAttempt = nextAttemptAt(d.status.nextAttemptTime);
    // An attempt whose instances cannot be counted could only time out: the head waits for the count.
    const unavailable = target.readinessUnavailable;
    if (position === 1 && unavailable) {
      d.phase("queued", unavailable.reason, `The queue is held: ${unavailable.message}.`);
      plan = wake(plan, cfg.pollIntervalMs * 5);
      continue;
    }
    if (position === 1) {
      const waitFor = headBookingWait(d.view, s, target.replicas);
      const hold = headHold({
        replicas: target.replicas,
        size: k,
        maxSize: group.maxSize,
        nextAttemptMs: nextAttempt,
        nowMs: s.nowMs,
        busy: plan.attemptInFlight || busy(plan),
        bookingInTheWay: waitFor !== undefined,
      });
      if (hold === "Capacity") {
        d.phase(
          "queued",
          "WaitingForCapacity",
          `Waiting for room: the target has ${target.replicas} replicas, ${k} more would exceed maxSize ${group.maxSize ?? ""}.`,
        );
        plan = wake(plan, cfg.pollIntervalMs * 5);
        continue;
      }
      if (hold === "Booking" && waitFor) {
        d.phase("queued", WAITING_FOR_BOOKING, bookingWaitMessage(waitFor, k, group.name));
        const recheck = cfg.pollIntervalMs * 5;
        plan = wake(plan, waitFor.until === undefined ? recheck : Math.max(0, waitFor.until - s.nowMs));
        continue;
      }
      if (hold === "Backoff") {
        d.phase("queued", "Backoff", `The next attempt starts at ${d.status.nextAttemptTime ?? ""}.`);
        plan = wake(plan, nextAttempt - s.nowMs);
        continue;
      }
      const notNext = hold === undefined ? namesNotNext(d, target, group) : undefined;
      if (notNext !== undefined) {
        // Its names can never be honoured now: the ordinals it names are behind or ahead of the target.
        d.fail(INSTANCE_NAMES_REFUSED, unsupportedNames(notNext));
        position--;
        continue;
      }
      if (hold === undefined) {
        plan = startAttempt(d, s, plan, target.replicas);
        position--;
        continue;
      }
    }
    // Nothing that changes while the queue moves goes into the status (not the position, not what the
    // queue waits for), so a queued request is written once, not at every step ahead of it.
    d.phase("queued", "Queued", `Waiting in the queue of group ${group.name} (first come, first served).`);
  }
  return plan;
}
