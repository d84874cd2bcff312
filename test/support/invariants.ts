// The invariant every fault test checks: a target's replicas equal exactly what its requests' final
// states imply — the base, plus each SUCCEEDED request's size until its run duration released it.
// Never more (a double-applied change), never less (a lost one).
import type { ResizeRequest } from "../../src/api/resize-request.js";

export function sizeOf(rr: ResizeRequest): number {
  return rr.spec.resizeBy ?? rr.spec.instances?.length ?? 0;
}

/** Replicas the requests imply for a target that started at `base` (minSize 0). */
export function impliedReplicas(base: number, requests: readonly ResizeRequest[]): number {
  return requests
    .filter((rr) => rr.status?.state === "SUCCEEDED" && rr.status.release?.phase !== "Applied")
    .reduce((sum, rr) => sum + sizeOf(rr), base);
}

export function isFinalState(rr: ResizeRequest): boolean {
  return ["SUCCEEDED", "FAILED", "CANCELLED"].includes(rr.status?.state ?? "");
}
