// One request's next status, built up by the steps of a decision: its status (copy on write), its
// events and its finalizer change, turned into a RequestChange at the end only if something changed.
import { ResizeRequestCondition as RC } from "../../../api/conditions.js";
import type { Errors } from "../../../api/errors.js";
import { numericId, resizeRequestLinks } from "../../../api/identity.js";
import { locationField } from "../../../api/location.js";
import { REST_KIND } from "../../../api/names.js";
import type { ResizeRequestStatus } from "../../../api/resize-request.js";
import type { EventDefinition } from "../../../events/catalog.js";
import { setCondition, type ConditionInput } from "../../conditions.js";
import { messageOf } from "../../errors.js";
import { resizeEvents as E } from "../../events.js";
import type { RequestView } from "../../../cache/request-view.js";
import type { GroupSnapshot } from "../snapshot.js";
import type { PlannedEvent, RequestChange } from "./plan.js";

/**
 * Equal as the API server would store them: key order does not matter and a key holding undefined is
 * the same as no key. A structural walk, no serialisation: it runs for every request of every pass.
 */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, i) => sameData(item, b[i]));
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = (o: Record<string, unknown>): string[] => Object.keys(o).filter((k) => o[k] !== undefined);
  const kx = keys(x);
  return kx.length === keys(y).length && kx.every((k) => k in y && sameData(x[k], y[k]));
}

/** Accumulates one request's next status, its events and its finalizer change. */
export class RequestDraft {
  status: ResizeRequestStatus;
  finalizer: "add" | "remove" | undefined;
  readonly events: PlannedEvent[] = [];

  constructor(
    readonly view: RequestView,
    private readonly now: string,
  ) {
    // Shared with the cache, never mutated: every change below builds new objects (copy on write).
    this.status = view.status;
  }

  get name(): string {
    return this.view.name;
  }

  // Each change below keeps the very same status object when it changes nothing, so a request the pass
  // leaves as it was is recognised by identity (change()), without copying or comparing its status.
  patch(fields: Partial<ResizeRequestStatus>): void {
    const current = this.status as Record<string, unknown>;
    if (Object.entries(fields).every(([key, value]) => current[key] === value)) return;
    this.status = { ...this.status, ...fields };
  }

  /** Removes optional status fields (set to undefined) so they disappear from the written object. */
  clear(...fields: (keyof ResizeRequestStatus)[]): void {
    if (fields.every((field) => !(field in this.status))) return;
    const drop = new Set<string>(fields);
    this.status = Object.fromEntries(Object.entries(this.status).filter(([key]) => !drop.has(key)));
  }

  condition(input: ConditionInput): void {
    const conditions = setCondition(this.status.conditions, input, this.now, this.view.generation);
    if (conditions !== this.status.conditions) this.status = { ...this.status, conditions };
  }

  emit(event: EventDefinition, note: string): void {
    this.events.push({ request: this.view.name, event, note });
  }

  /** Conditions of an active request: exactly one of Queued / Provisioning is True. */
  phase(kind: "queued" | "provisioning" | "creating", reason: string, message: string): void {
    this.patch({ reason });
    if (kind === "creating") {
      this.condition({ type: RC.Accepted, status: "Unknown", reason, message });
      return;
    }
    this.condition({
      type: RC.Accepted,
      status: "True",
      reason: "Admitted",
      message: "The request passed admission against its group.",
    });
    this.condition({ type: RC.Queued, status: kind === "queued" ? "True" : "False", reason, message });
    this.condition({
      type: RC.Provisioning,
      status: kind === "provisioning" ? "True" : "False",
      reason,
      message,
    });
  }

  /** Moves to a final state: clears what only active requests carry, closes the phase conditions. */
  finish(state: "SUCCEEDED" | "FAILED" | "CANCELLED", reason: string, message: string): void {
    this.patch({ state, reason });
    this.clear("lastAttempt", "nextAttemptTime", "provisioning");
    for (const type of [RC.Queued, RC.Provisioning]) {
      if (this.status.conditions?.some((c) => c.type === type)) {
        this.condition({ type, status: "False", reason, message });
      }
    }
    const conditionType =
      state === "SUCCEEDED" ? RC.Succeeded : state === "FAILED" ? RC.Failed : RC.Cancelled;
    this.condition({ type: conditionType, status: "True", reason, message });
    if (this.view.hasFinalizer) this.finalizer = "remove";
  }

  fail(reason: string, errors: Errors, event: EventDefinition = E.AdmissionFailed): void {
    this.patch({ error: errors });
    this.finish("FAILED", reason, messageOf(errors));
    this.emit(event, messageOf(errors));
  }

  change(): RequestChange | undefined {
    const statusChanged = this.status !== this.view.status && !sameData(this.status, this.view.status);
    const finalizer =
      this.finalizer === "add" && !this.view.hasFinalizer
        ? "add"
        : this.finalizer === "remove" && this.view.hasFinalizer
          ? "remove"
          : undefined;
    if (!statusChanged && finalizer === undefined) return undefined;
    return {
      name: this.view.name,
      ...(statusChanged && { status: this.status }),
      ...(finalizer && { finalizer }),
    };
  }
}

/** Fields every status carries, derived from identity: kind, id, links, creation time. */
export function stampIdentity(d: RequestDraft, s: GroupSnapshot): void {
  const id = d.status.id ?? numericId(d.view.uid);
  const location = s.group?.location;
  const links =
    location && resizeRequestLinks(s.config.publicUrl, s.namespace, location, s.groupName, d.name, id);
  d.patch({
    kind: REST_KIND.resizeRequest,
    id,
    creationTimestamp: d.view.creationTimestamp,
    ...(location &&
      links && {
        [locationField(location)]: links.location,
        selfLink: links.selfLink,
        selfLinkWithId: links.selfLinkWithId,
      }),
    observedGeneration: d.view.generation,
  });
}
