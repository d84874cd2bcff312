// metav1.Condition bookkeeping: lastTransitionTime moves only when the status flips, so re-deciding
// an unchanged situation produces an identical status and therefore no write.
import type { Condition } from "../api/conditions.js";

export interface ConditionInput {
  readonly type: string;
  readonly status: "True" | "False" | "Unknown";
  readonly reason: string;
  readonly message: string;
}

/** The list with `input` set; the very same list when it already says exactly that. */
export function setCondition(
  conditions: Condition[] | undefined,
  input: ConditionInput,
  now: string,
  observedGeneration: number,
): Condition[] {
  const index = conditions?.findIndex((c) => c.type === input.type) ?? -1;
  const previous = index >= 0 ? conditions?.[index] : undefined;
  if (
    conditions &&
    previous?.status === input.status &&
    previous.reason === input.reason &&
    previous.message === input.message &&
    previous.observedGeneration === observedGeneration
  )
    return conditions;
  const list = [...(conditions ?? [])];
  const next: Condition = {
    ...input,
    observedGeneration,
    lastTransitionTime: previous && previous.status === input.status ? previous.lastTransitionTime : now,
  };
  if (index >= 0) list[index] = next;
  else list.push(next);
  return list;
}
