// Queue deadlines (docs/design.md §4 "Queue deadline"), pure: when a waiting request's maxQueueDuration
// elapses, and what it was waiting for, in the words of its error. decide() calls this for requests that
// wait (CREATING, or ACCEPTED and queued, including backoff), never during a provisioning attempt.
import { formatDuration, parseKubeDuration } from "../../api/duration.js";
import type { Errors } from "../../api/errors.js";
import { isFinalState } from "../../api/lifecycle.js";
import type { ResizeRequestStatus } from "../../api/resize-request.js";
import {
  fifo,
  fitsUnderMax,
  nextAttemptAt,
  queueDeadlineOf,
  roomUnder,
  type QueueDeadline,
} from "../../queue/rules.js";
import { queueDeadlineExceeded } from "../errors.js";
import type { GroupSnapshot, GroupView } from "./snapshot.js";
import type { RequestView } from "../../cache/request-view.js";

/**
 * The request's queue deadline, if any. REST inserts carry no maxQueueDuration (the wire format is
 * GCE's), so they get the group's value, read at decision time: changing the group's default moves the
 * deadline of every request that has none of its own.
 */
export function queueDeadline(r: RequestView, group: GroupView | undefined): QueueDeadline | undefined {
  const own = r.spec.maxQueueDuration === undefined ? undefined : parseKubeDuration(r.spec.maxQueueDuration);
  return queueDeadlineOf(Date.parse(r.creationTimestamp), own, group?.maxQueueDurationMs);
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/** What a waiting request waits for, checked in the order the queue applies them. */
export function waitingFor(
  r: RequestView,
  status: ResizeRequestStatus,
  s: GroupSnapshot,
  size: number,
): string {
  const group = s.group;
  if (!group) return "for the group to exist";
  const target = s.target;
  if (!target?.found)
    return `for its target ${group.targetKind}/${group.targetName} (${target?.message ?? "not read"})`;
  const ahead = s.requests.filter((o) => fifo(o, r) < 0 && !isFinalState(o.status.state)).length;
  if (ahead > 0) return `behind ${plural(ahead, "request")}`;
  if (group.maxSize !== undefined && !fitsUnderMax(target.replicas, size, group.maxSize)) {
    const room = roomUnder(target.replicas, group.maxSize);
    return `for room: needs ${size}, room ${room} under maxSize ${group.maxSize}`;
  }
  const attempts = status.attempts ?? 0;
  if (nextAttemptAt(status.nextAttemptTime) > s.nowMs) {
    const last = status.lastAttempt?.error?.errors[0]?.code;
    return `in backoff after ${plural(attempts, "failed attempt")}${last === undefined ? "" : ` (last: ${last})`}`;
  }
  // Nothing blocks it now: it was held by a change of another request, or room appeared only now.
  const holder = s.requests.find(
    (o) =>
      o.name !== r.name && (o.status.provisioning !== undefined || o.status.release?.phase === "Applying"),
  );
  if (holder)
    return holder.status.provisioning
      ? `behind the attempt of request ${holder.name}`
      : `behind the release of request ${holder.name}'s instances`;
  return status.reason === "WaitingForCapacity" && group.maxSize !== undefined
    ? `for room under maxSize ${group.maxSize}, which came only at the deadline`
    : "for its turn";
}

/**
 * For a waiting request: its error once its queue deadline has passed, else the delay until the
 * deadline (the group is reconciled then, so the deadline fires on time); undefined without a deadline.
 */
export function checkQueueDeadline(
  r: RequestView,
  status: ResizeRequestStatus,
  s: GroupSnapshot,
  size: number,
): { readonly errors: Errors } | { readonly inMs: number } | undefined {
  const deadline = queueDeadline(r, s.group);
  if (deadline === undefined) return undefined;
  if (s.nowMs < deadline.atMs) return { inMs: deadline.atMs - s.nowMs };
  return {
    errors: queueDeadlineExceeded({
      waited: formatDuration(s.nowMs - Date.parse(r.creationTimestamp)),
      maxQueueDuration: formatDuration(deadline.durationMs),
      setBy: deadline.setBy,
      group: s.groupName,
      waitingFor: waitingFor(r, status, s, size),
    }),
  };
}
