// What one pass of the provisioner reads for a ProvisioningRequest key (observe.ts reads it, decide.ts
// decides on it alone): the time and the settings, the groups, the ResizeRequests a deleted request
// left, and — for a request of our class — the request and everything read of it. A key whose request
// is gone, or is of another class, is a snapshot too: decide.ts says what becomes of its leftovers.
import type { FutureReservation } from "../../api/future-reservation.js";
import type { InstanceGroupManager } from "../../api/instance-group-manager.js";
import type { PodTemplate, ProvisioningRequest } from "../../api/provisioning-request.js";
import type { ResizeRequest } from "../../api/resize-request.js";
import type { CachedQueue } from "../../cache/group-queue.js";
import type { RequestInsight } from "../../queue/insight.js";
import type { ParsedParameters } from "./parameters.js";

/** What every pass reads, whatever became of the request. */
interface PassReads {
  readonly nowMs: number;
  /** How long a ResizeRequest of a finished ProvisioningRequest is kept once nothing is held (cleanup.ts). */
  readonly retentionMs: number;
  /** Every group the cache holds (placement and ownership read them). */
  readonly groups: readonly InstanceGroupManager[];
  /**
   * ResizeRequests a deleted request of this name left: those of another uid than the request's, or
   * all that serve the key when the request is gone (none when it is of another class).
   */
  readonly orphans: readonly ResizeRequest[];
}

/** A request of our class, and what the decision reads of it. */
export interface RequestSnapshot extends PassReads {
  readonly request: ProvisioningRequest;
  /** Its parameters, parsed once per pass. */
  readonly parameters: ParsedParameters;
  /**
   * When the booking of its provisioned capacity ends (booking.ts), computed once per pass; undefined
   * without a ResizeRequest, once expired or once the capacity was released.
   */
  readonly bookingEndsAt: number | undefined;
  /** The request's ResizeRequest once it is accepted, if it exists: the one at the place recorded then. */
  readonly resizeRequest: ResizeRequest | undefined;
  /**
   * ResizeRequests of the name derived from the request in the groups' namespaces, read while it is not
   * accepted: one the provisioner made before a crash kept it from recording the acceptance is adopted.
   */
  readonly namesakes: readonly ResizeRequest[];
  /** Its pod sets' templates by name (read only before the ResizeRequest exists); undefined: missing. */
  readonly templates: ReadonlyMap<string, PodTemplate | undefined>;
  /** Labels of the request's namespace, when a group selects namespaces. */
  readonly namespaceLabels: Readonly<Record<string, string>> | undefined;
  /** The queue model's view of the ResizeRequest while it waits or provisions. */
  readonly insight: RequestInsight | undefined;
  /** Queue length of the ResizeRequest's group. */
  readonly queueLength: number;
  /** A pod consuming the request's capacity exists (Kueue's consume-provisioning-request annotation). */
  readonly consumed: boolean;
  /**
   * Every group's queue, read only while placing a request: capacitySearchStrategy OBTAINABILITY
   * compares them, and the acceptance says the position and ETA the chosen one gives.
   */
  readonly queues?: ReadonlyMap<string, CachedQueue>;
  /** The booking the futureReservation parameter names, from the cache (undefined: none of that name). */
  readonly futureReservation?: FutureReservation;
  /** Whether this operator serves FutureReservations at all (their CRD was installed at start-up). */
  readonly futureReservationsServed?: boolean;
}

/** A key whose request is gone, or is of another class: only its orphans are decided on. */
export interface GoneRequestSnapshot extends PassReads {
  readonly request: undefined;
}

export type ProvisioningSnapshot = RequestSnapshot | GoneRequestSnapshot;
