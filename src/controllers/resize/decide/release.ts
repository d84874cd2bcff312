// Finished requests: late cancels are refused, the finalizer goes, and a SUCCEEDED request with a run
// duration gives its instances back when it elapses (the release, recorded before it is applied like
// an attempt's change, never below the group's minSize).
import { type Condition, ResizeRequestCondition as RC } from "../../../api/conditions.js";
import { resizeEvents as E } from "../../events.js";
import type { RequestDraft } from "./request-draft.js";
import { releaseLowers, releaseTarget, releaseUnapplied, sizeOf } from "../../../queue/rules.js";
import { releaseRemoval } from "./instances.js";
import type { GroupSnapshot } from "../snapshot.js";
import { busy, planScale, resolved, wake, type PlanDraft } from "./plan-draft.js";
import { ms, nowOf } from "./readings.js";

/** A request in a final state: refuse late cancels, drop the finalizer, release after the run duration. */
export function stepFinal(draft: RequestDraft, s: GroupSnapshot, plan: PlanDraft): PlanDraft {
  const r = draft.view;
  if (r.spec.cancel && draft.status.state !== "CANCELLED") {
    const existing = draft.status.conditions?.find((c: Condition) => c.type === RC.Cancelled);
    if (existing?.reason !== "CancelRefused") {
      const message = `The request already reached ${draft.status.state ?? ""}, a final state; cancel has no effect.`;
      draft.condition({ type: RC.Cancelled, status: "False", reason: "CancelRefused", message });
      draft.emit(E.CancelRefused, message);
    }
  }
  // Deleting a finished request leaves its instances alone (docs/design.md §4). A finished request keeps no
  // finalizer: one left by a pass that ended early (a conflict, a crash) is removed now.
  if (r.hasFinalizer) draft.finalizer = "remove";
  if (r.deleting) return plan;
  return draft.status.state === "SUCCEEDED" ? stepRelease(draft, s, plan) : plan;
}

/** Finishes the run-duration release of a SUCCEEDED request, or starts it when due. */
export function stepRelease(draft: RequestDraft, s: GroupSnapshot, plan: PlanDraft): PlanDraft {
  const release = draft.status.release;
  if (release?.phase === "Applied") return plan;
  const runUntil = draft.status.runUntil;
  if (!release && (runUntil === undefined || !s.group)) return plan;
  if (!release && ms(runUntil) > s.nowMs) return wake(plan, ms(runUntil) - s.nowMs);
  const target = s.target;
  if (!target?.found) return plan;
  const t = target.replicas;
  const released = (note: string): void => {
    draft.patch({
      release: {
        ...(release ?? { baseReplicas: t, targetReplicas: t, startedTime: nowOf(s) }),
        phase: "Applied",
        appliedTime: nowOf(s),
      },
    });
    draft.condition({ type: RC.Released, status: "True", reason: "RunDurationElapsed", message: note });
    draft.emit(E.Released, note);
  };
  if (release) {
    if (releaseUnapplied(release, t)) return applyRelease(plan, s, draft.name, t, release.targetReplicas);
    released(
      t === release.targetReplicas
        ? `The run duration elapsed; the target went from ${release.baseReplicas} to ${t} replicas.`
        : `The run duration elapsed; the target's replicas were changed outside the operator (now ${t}), so they were left alone.`,
    );
    return resolved(plan);
  }
  if (busy(plan) || plan.attemptInFlight) return plan;
  const minSize = s.group?.minSize ?? 0;
  const size = sizeOf(draft.view);
  if (!releaseLowers(t, size, minSize)) {
    // A resolution: an attempt may start in the same plan, recorded after this write (see resolved()),
    // so its increase can never be taken for room this release could remove.
    released(
      `The run duration elapsed; the target is at its floor of ${t} replicas (minSize ${minSize}), nothing to remove.`,
    );
    return resolved(plan);
  }
  const to = releaseTarget(t, size, minSize);
  draft.patch({ release: { phase: "Applying", baseReplicas: t, targetReplicas: to, startedTime: nowOf(s) } });
  return applyRelease(plan, s, draft.name, t, to);
}

/**
 * Plans a recorded release's scale-down and looks again after a poll interval, as an attempt's does:
 * nothing watches the target, so the release's resolution must not hang on one watch event of its
 * record (a relist, a pass that conflicted and was retried with backoff) to be seen applied.
 */
function applyRelease(
  plan: PlanDraft,
  s: GroupSnapshot,
  request: string,
  from: number,
  to: number,
): PlanDraft {
  const removal = releaseRemoval(s, request, from - to);
  return wake(planScale(plan, request, from, to, removal), s.config.pollIntervalMs);
}
