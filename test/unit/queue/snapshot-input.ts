// The queue model's input for the state a decision sees: the group, the requests and the target of a
// GroupSnapshot (test/unit/controller/builders.ts) as the objects the model reads
// (test/unit/controller/cluster.ts writes the same objects into the fake API server), so one
// generated state goes to both decide() and queueInsight(); and succeeded requests for such states.
import { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import type { Release } from "../../../src/api/resize-request.js";
import type { GroupSnapshot } from "../../../src/controllers/resize/snapshot.js";
import type { RequestView } from "../../../src/cache/request-view.js";
import type { QueueInput } from "../../../src/queue/insight.js";
import { finalStatus, identityOf, iso, req } from "../controller/builders.js";
import { groupObject, requestObject } from "../controller/cluster.js";

export function queueInputOf(s: GroupSnapshot): QueueInput {
  const target = s.target?.found
    ? { replicas: s.target.replicas, readyReplicas: s.target.readyReplicas }
    : undefined;
  return {
    group: s.group && InstanceGroupManager.parse(groupObject(s, s.group)),
    requests: s.requests.map((r) => requestObject(s, r)),
    target,
    now: s.nowMs,
    ...(s.bookings && { bookings: s.bookings }),
  };
}

export interface Succeeded {
  /** Creation, absolute ms. */
  readonly created: number;
  readonly size: number;
  /** When it succeeded, absolute ms, after an attempt of `tookMs`. */
  readonly succeeded: number;
  readonly tookMs: number;
  /** Its runUntil, absolute ms; none without a run duration. */
  readonly runUntil?: number;
  readonly release?: Release;
}

/** A SUCCEEDED request as decide() leaves it: one attempt, its duration on record, its release due at runUntil. */
export function succeeded(name: string, o: Succeeded): RequestView {
  const status = finalStatus(name, "SUCCEEDED", {
    ...identityOf(name, o.created),
    attempts: 1,
    provisioningStartedTime: iso(o.succeeded - o.tookMs),
    succeededTime: iso(o.succeeded),
    ...(o.runUntil !== undefined && { runUntil: iso(o.runUntil) }),
    ...(o.release && { release: o.release }),
  });
  return req(name, {
    created: o.created,
    resizeBy: o.size,
    ...(o.runUntil !== undefined && { run: { seconds: "1200" } }),
    status,
  });
}
