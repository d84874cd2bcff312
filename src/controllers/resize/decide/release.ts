// Finished requests: late cancels are refused, the finalizer goes, and a SUCCEEDED request with a run
// duration gives its instances back when it elapses (the release, recorded before it is applied like
// an attempt's change, never below the group's minSize).
import { type Condition, ResizeRequestCondition as RC } from "../../../api/conditions.js";
import { resizeEvents as E } from "../../events.js";
import type { RequestDraft } from "./draft.js";
import { releaseLowers, releaseTarget, releaseUnapplied, sizeOf } from "../../../queue/rules.js";
import { releaseRemoval } from "./instances.js";
import { busy, ms, planScale, resolved, wake, type Pass, type Turn } from "./pass.js";

/** A request in a final state: refuse late cancels, drop the finalizer, release after the run duration. */
export function stepFinal(draft: RequestDraft, pass: Pass, turn: Turn): Turn {
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
  if (r.deleting) return turn;
  return draft.status.state === "SUCCEEDED" ? stepRelease(draft, pass, turn) : turn;
}

/** Finishes the run-duration release of a SUCCEEDED request, or starts it when due. */
export function stepRelease(draft: RequestDraft, pass: Pass, turn: Turn): Turn {
  const { s } = pass;
  const release = draft.status.release;
  if (release?.phase === "Applied") return turn;
  const runUntil = draft.status.runUntil;
  if (!release && (runUntil === undefined || !s.group)) return turn;
  if (!release && ms(runUntil) > s.nowMs) return wake(turn, ms(runUntil) - s.nowMs);
  const target = s.target;
  if (!target?.found) return turn;
  const t = target.replicas;
  const released = (note: string): void => {
    draft.patch({
      release: {
        ...(release ?? { baseReplicas: t, targetReplicas: t, startedTime: pass.now }),
        phase: "Applied",
        appliedTime: pass.now,
      },
    });
    draft.condition({ type: RC.Released, status: "True", reason: "RunDurationElapsed", message: note });
    draft.emit(E.Released, note);
  };
  if (release) {
    if (releaseUnapplied(release, t)) return applyRelease(turn, pass, draft.name, t, release.targetReplicas);
    released(
      t === release.targetReplicas
        ? `The run duration elapsed; the target went from ${release.baseReplicas} to ${t} replicas.`
        : `The run duration elapsed; the target's replicas were changed outside the operator (now ${t}), so they were left alone.`,
    );
    return resolved(turn);
  }
  if (busy(turn) || turn.attemptInFlight) return turn;
  const minSize = s.group?.minSize ?? 0;
  const size = sizeOf(draft.view);
  if (!releaseLowers(t, size, minSize)) {
    // A resolution: an attempt may start in the same plan, recorded after this write (see resolved()),
    // so its increase can never be taken for room this release could remove.
    released(
      `The run duration elapsed; the target is at its floor of ${t} replicas (minSize ${minSize}), nothing to remove.`,
    );
    return resolved(turn);
  }
  const to = releaseTarget(t, size, minSize);
  draft.patch({ release: { phase: "Applying", baseReplicas: t, targetReplicas: to, startedTime: pass.now } });
  return applyRelease(turn, pass, draft.name, t, to);
}

/**
 * Plans a recorded release's scale-down and looks again after a poll interval, as an attempt's does:
 * nothing watches the target, so the release's resolution must not hang on one watch event of its
 * record (a relist, a pass that conflicted and was retried with backoff) to be seen applied.
 */
function applyRelease(turn: Turn, pass: Pass, request: string, from: number, to: number): Turn {
  const removal = releaseRemoval(pass, request, from - to);
  return wake(planScale(turn, request, from, to, removal), pass.cfg.pollIntervalMs);
}
