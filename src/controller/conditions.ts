// metav1.Condition bookkeeping: lastTransitionTime moves only when the status flips, so re-deciding
// an unchanged situation produces an identical status and therefore no write.
import type { Condition } from "../api/conditions.js";

export interface ConditionInput {
  readonly type: string;
  readonly status: "True" | "False" | "Unknown";
  readonly reason: string;
  readonly message: string;
}

export function setCondition(
  conditions: readonly Condition[] | undefined,
  input: ConditionInput,
  now: string,
  observedGeneration: number,
): Condition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((c) => c.type === input.type);
  const previous = index >= 0 ? list[index] : undefined;
  const next: Condition = {
    ...input,
    observedGeneration,
    lastTransitionTime: previous && previous.status === input.status ? previous.lastTransitionTime : now,
  };
  if (index >= 0) list[index] = next;
  else list.push(next);
  return list;
}
