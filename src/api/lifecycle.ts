// A resize request's states and the order in which its group serves the queue: the one definition the
// controller, the REST API and the dashboard's browser code share. Imports nothing, so that the browser
// can load this module as tsc emits it (src/dashboard/ui/tsconfig.json; no bundler).

export const RESIZE_REQUEST_STATES = ["CREATING", "ACCEPTED", "SUCCEEDED", "FAILED", "CANCELLED"] as const;
export type ResizeRequestStateName = (typeof RESIZE_REQUEST_STATES)[number];

/** States a request never leaves. */
export const FINAL_STATES: readonly ResizeRequestStateName[] = ["SUCCEEDED", "FAILED", "CANCELLED"];

/** True for SUCCEEDED, FAILED and CANCELLED; accepts any string (summaries carry the state as one). */
export function isFinalState(state: string | undefined): boolean {
  return state !== undefined && (FINAL_STATES as readonly string[]).includes(state);
}

/** What FIFO order reads of a request. */
export interface QueueEntry {
  readonly creationTimestamp: string;
  readonly name: string;
}

/** FIFO order of a group's queue: creation time, then name. */
export function fifo(a: QueueEntry, b: QueueEntry): number {
  return a.creationTimestamp < b.creationTimestamp
    ? -1
    : a.creationTimestamp > b.creationTimestamp
      ? 1
      : a.name < b.name
        ? -1
        : a.name > b.name
          ? 1
          : 0;
}

/**
 * Whether a request of `size` instances can ever be served by a group bounded by `maxSize` (admission:
 * one that cannot fails with QUOTA_EXCEEDED instead of waiting forever). The resize controller and the
 * ProvisioningRequest sizing both ask this.
 */
export function everFits(size: number, maxSize: number | undefined): boolean {
  return maxSize === undefined || size <= maxSize;
}
