// The draft of a ProvisioningRequest's next status as one pass decides it (pure): its conditions, its
// provisioningClassDetails and the Event of each condition whose status or reason changes. Shared by
// the decision of a request served by its own ResizeRequest (decide.ts) and of one served from a
// booking (booked.ts).
import {
  ProvisioningCondition as C,
  type PrCondition,
  type ProvisioningRequest,
} from "../../api/provisioning-request.js";
import { setCondition, type ConditionInput } from "../conditions.js";
import type { EventDefinition } from "../../events/catalog.js";
import { sameDetails, withoutQueue } from "./details.js";
import { provisioningEvents as E, Reason } from "./conditions.js";
import { unknownParametersMessage } from "./parameters.js";

export const isTrue = (conditions: readonly PrCondition[] | undefined, type: string): boolean =>
  conditions?.some((c) => c.type === type && c.status === "True") ?? false;
export const find = (conditions: readonly PrCondition[] | undefined, type: string): PrCondition | undefined =>
  conditions?.find((c) => c.type === type);

/** Accumulates the next conditions; an event for each condition whose status or reason changes. */
export class ProvisioningDraft {
  conditions: PrCondition[];
  details: Readonly<Record<string, string>> | undefined;
  readonly events: { definition: EventDefinition; note: string }[] = [];
  private readonly before: readonly PrCondition[];

  constructor(
    private readonly request: ProvisioningRequest,
    private readonly now: string,
  ) {
    this.before = request.status?.conditions ?? [];
    this.conditions = [...this.before];
    this.details = request.status?.provisioningClassDetails;
  }

  set(input: ConditionInput, event?: EventDefinition): void {
    const previous = find(this.before, input.type);
    this.conditions = setCondition(this.conditions, input, this.now, this.request.metadata.generation ?? 0);
    if (event && (previous?.status !== input.status || previous.reason !== input.reason))
      this.events.push({ definition: event, note: input.message });
  }

  changed(): boolean {
    return (
      !sameDetails(this.details, this.request.status?.provisioningClassDetails) ||
      JSON.stringify(this.conditions) !== JSON.stringify(this.before)
    );
  }
}

/** Failed=True (with Accepted and Provisioned False) for `reason`, and its Event. */
export function fail(d: ProvisioningDraft, reason: Reason, message: string): void {
  d.details = withoutQueue(d.details);
  d.set({ type: C.Accepted, status: "False", reason, message });
  d.set({ type: C.Provisioned, status: "False", reason, message });
  d.set({ type: C.Failed, status: "True", reason, message }, E.ProvisioningFailed);
}

/**
 * Accepted=True with `message`, and the parameter keys the request carries that the provisioner does not
 * know: named in the message and, once (admission runs only until Accepted=True is written), in an Event.
 */
export function accept(d: ProvisioningDraft, message: string, unknown: readonly string[]): void {
  const ignored = unknown.length > 0 ? `Ignored ${unknownParametersMessage(unknown)}.` : undefined;
  d.set(
    {
      type: C.Accepted,
      status: "True",
      reason: Reason.Accepted,
      message: ignored ? `${message} ${ignored}` : message,
    },
    E.ProvisioningAccepted,
  );
  if (ignored) d.events.push({ definition: E.UnknownParameters, note: ignored });
}
