// A group's queue as the dashboard answers it: the queue model on the caches (cache/group-queue.ts)
// plus the moments capacity frees, for the forecast on the capacity chart. Nothing of it is stored.
import type { groupQueue } from "../cache/group-queue.js";
import type { QueueAnswer } from "./answers.js";

/** GET /groups/:namespace/:name/queue. */
export function queueAnswer(source: ReturnType<typeof groupQueue>, now: number): QueueAnswer {
  const { insight } = source;
  return {
    now,
    exists: source.group !== undefined,
    queueLength: insight.queueLength,
    history: insight.history ?? null,
    requests: insight.requests,
    releases: insight.releases,
  };
}
