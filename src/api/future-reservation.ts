// FutureReservation: capacity of a group booked ahead, for a fixed window, in the words of Compute
// Engine's future reservations in calendar mode (compute v1 `futureReservations`, docs/booking.md).
// The group is the SKU: its instance shape is what is booked, so of the compute API's
// `specificSkuProperties` only `totalCount` is left, flattened onto spec.
import { z } from "zod";
import { Conditions } from "./conditions.js";
import { customResource, type CustomResourceModel } from "./custom-resource.js";
import { Duration, durationToMillis } from "./duration.js";
import { rule, type RuleSpec } from "./meta.js";
import { FUTURE_RESERVATION, GROUP } from "./names.js";
import { Generation, Rfc1035Label, Timestamp } from "./primitives.js";
import { CANCEL_STAYS, unchanged } from "./resize-request.js";

/** Shortest window: 1 s. The compute API's calendar mode starts at 1 day; shorter ones serve tests and trials. */
export const MIN_WINDOW_SECONDS = 1;
/** Longest window: 90 days, the compute API's calendar mode bound. Also how far ahead a declined booking's earliest fit is searched. */
export const MAX_WINDOW_SECONDS = 90 * 24 * 3600;
export const MAX_WINDOW_MS = MAX_WINDOW_SECONDS * 1000;

const seconds = "(has(self.duration.seconds) ? int(self.duration.seconds) : 0)";
const nanos = "(has(self.duration.nanos) ? self.duration.nanos : 0)";
const BOUNDS_MESSAGE = `the window must last from ${MIN_WINDOW_SECONDS}s to 90 days (${MAX_WINDOW_SECONDS}s)`;

/** The window's length in ms when it is set and well formed; undefined otherwise. */
export function windowLengthMs(w: {
  readonly startTime: string;
  readonly endTime?: string | undefined;
  readonly duration?: Duration | undefined;
}): number | undefined {
  if (w.duration !== undefined) return durationToMillis(w.duration);
  if (w.endTime === undefined) return undefined;
  const ms = Date.parse(w.endTime) - Date.parse(w.startTime);
  return Number.isFinite(ms) ? ms : undefined;
}

const windowRules: RuleSpec<{ startTime: string; endTime?: string | undefined; duration?: Duration }>[] = [
  {
    cel: "has(self.endTime) != has(self.duration)",
    message: "exactly one of endTime and duration must be set",
    test: (w) => (w.endTime === undefined) !== (w.duration === undefined),
  },
  {
    // The API server hands date-time strings to CEL as timestamps.
    cel: "!has(self.endTime) || self.endTime > self.startTime",
    message: "endTime must be after startTime",
    fieldPath: ".endTime",
    test: (w) => w.endTime === undefined || Date.parse(w.endTime) > Date.parse(w.startTime),
  },
  {
    cel: `!has(self.endTime) || self.endTime <= self.startTime || (self.endTime - self.startTime >= duration('${MIN_WINDOW_SECONDS}s') && self.endTime - self.startTime <= duration('${MAX_WINDOW_SECONDS}s'))`,
    message: BOUNDS_MESSAGE,
    fieldPath: ".endTime",
    test: (w) => {
      const ms = w.endTime === undefined ? undefined : windowLengthMs(w);
      return ms === undefined || ms <= 0 || (ms >= MIN_WINDOW_SECONDS * 1000 && ms <= MAX_WINDOW_MS);
    },
  },
  {
    // The seconds' own pattern reports a malformed value; the guard keeps int() from failing on it.
    cel: `!has(self.duration) || (has(self.duration.seconds) && !self.duration.seconds.matches('^[0-9]{1,12}$')) || (${seconds} >= ${MIN_WINDOW_SECONDS} && (${seconds} < ${MAX_WINDOW_SECONDS} || (${seconds} == ${MAX_WINDOW_SECONDS} && ${nanos} == 0)))`,
    message: BOUNDS_MESSAGE,
    fieldPath: ".duration",
    test: (w) => {
      if (w.duration === undefined) return true;
      const s = Number(w.duration.seconds ?? "0");
      return (
        s >= MIN_WINDOW_SECONDS && (s < MAX_WINDOW_SECONDS || (s === MAX_WINDOW_SECONDS && !w.duration.nanos))
      );
    },
  },
];

export const TimeWindow = windowRules.reduce(
  (schema, r) => rule(schema, r),
  z
    .object({
      startTime: Timestamp.meta({ description: "Start of the window (RFC 3339)." }),
      endTime: Timestamp.meta({
        description:
          "End of the window (RFC 3339), after startTime. Exactly one of endTime and duration is set.",
      }).optional(),
      duration: Duration.meta({
        description:
          "Length of the window from startTime, as the compute API's Duration. Exactly one of endTime and duration is set.",
      }).optional(),
    })
    .meta({
      description: `When the instances are booked: from startTime to endTime, or for duration (the compute API's FutureReservationTimeWindow). ${MIN_WINDOW_SECONDS}s to 90 days; the compute API's calendar mode allows 1 to 90 days.`,
    }),
);
export type TimeWindow = z.infer<typeof TimeWindow>;

const specFields = {
  instanceGroupManager: Rfc1035Label.meta({
    description: "Name of the InstanceGroupManager, in the same namespace, whose instances are booked.",
  }),
  totalCount: z.int32().min(1).meta({
    description:
      "Instances booked for the window: the compute API's specificSkuProperties.totalCount (an integer here, not an int64 string). The group's instance shape is the SKU.",
  }),
  timeWindow: TimeWindow,
  description: z.string().max(2048).meta({ description: "Free text about the booking." }).optional(),
  cancel: z
    .boolean()
    .meta({
      description:
        "Set to true to cancel the booking: one pending approval or approved becomes CANCELLED and holds no capacity. The only field that may change after creation, and only from false to true.",
    })
    .default(false),
};

export const FutureReservationSpec = Object.entries(specFields)
  .filter(([field]) => field !== "cancel")
  .reduce(
    (spec, entry) => rule(spec, unchanged(entry)),
    rule(
      z.object(specFields).meta({
        description: "What is booked. Immutable after creation except cancel.",
      }),
      CANCEL_STAYS,
    ),
  );
export type FutureReservationSpec = z.infer<typeof FutureReservationSpec>;

/**
 * The compute API's FutureReservationStatus.procurementStatus values this operator uses. Left out:
 * DRAFTING and COMMITTED (no drafts, no commitments), PENDING_AMENDMENT_APPROVAL (a booking is not
 * amended), PROCURING (nothing is bought) and FAILED_PARTIALLY_FULFILLED (delivery is all or nothing).
 * The compute API has no state for a window that has ended; neither has this one.
 */
export const PROCUREMENT_STATUSES = [
  "PENDING_APPROVAL",
  "APPROVED",
  "DECLINED",
  "PROVISIONING",
  "FULFILLED",
  "CANCELLED",
  "FAILED",
] as const;
export type ProcurementStatusName = (typeof PROCUREMENT_STATUSES)[number];

/** Statuses a booking never leaves. */
export const FINAL_PROCUREMENT_STATUSES: readonly ProcurementStatusName[] = [
  "DECLINED",
  "CANCELLED",
  "FAILED",
];

/** Statuses whose window holds the group's capacity. */
export const HOLDING_PROCUREMENT_STATUSES: readonly ProcurementStatusName[] = [
  "APPROVED",
  "PROVISIONING",
  "FULFILLED",
];

export const ProcurementStatus = z.enum(PROCUREMENT_STATUSES).meta({
  description:
    "Where the booking stands, in the compute API's words. DECLINED, CANCELLED and FAILED are final.",
  enumDescriptions: {
    PENDING_APPROVAL: "Not decided yet (its group does not exist yet, or its size is not known yet).",
    APPROVED:
      "The group has room for the booking for its whole window, against maxSize, every other approved booking and the running requests' releases.",
    DECLINED: "The group has no room for the window; the message names the earliest window that fits.",
    PROVISIONING:
      "Its delivery ResizeRequest (fr-<name>) exists and is queued or attempting: created the lead time before the window's start.",
    FULFILLED:
      "All booked instances are ready (its delivery request SUCCEEDED); they are released at the window's end, when the Ended condition turns True.",
    CANCELLED:
      "Cancelled by its owner (spec.cancel): a delivery not yet succeeded is cancelled; instances already delivered are released now (condition Ended, reason ReleasedOnCancel).",
    FAILED:
      "The booking could not be delivered: its delivery request failed, or was backing off from a failed attempt at the window's start (then it is cancelled).",
  },
});

/** Condition types of a FutureReservation. */
export const FutureReservationCondition = {
  /** True once APPROVED, False once DECLINED, Unknown while pending (the reason says on what). */
  Approved: "Approved",
  /** True once CANCELLED. */
  Cancelled: "Cancelled",
  /** Unknown while PROVISIONING (reason Provisioning), True once FULFILLED, False once FAILED (the reason says why). */
  Delivered: "Delivered",
  /**
   * True once the window has ended (reason WindowEnded), or once a cancelled booking's delivered instances
   * were released before it (ReleasedOnCancel): the compute API has no procurementStatus word for it.
   */
  Ended: "Ended",
} as const;

const FINAL_CEL = `[${FINAL_PROCUREMENT_STATUSES.map((s) => `'${s}'`).join(", ")}]`;

export const FutureReservationStatus = rule(
  z
    .object({
      procurementStatus: ProcurementStatus.optional(),
      startTime: Timestamp.meta({
        description: "Start of the window, as spec.timeWindow.startTime.",
      }).optional(),
      endTime: Timestamp.meta({
        description: "End of the window: spec.timeWindow.endTime, or startTime plus duration.",
      }).optional(),
      message: z
        .string()
        .max(4096)
        .meta({
          description:
            "Why the booking was approved or declined; a declined one names the earliest window of the same length that fits, or says none fits within 90 days.",
        })
        .optional(),
      suggestedTimeWindow: z
        .object({
          startTime: Timestamp.meta({ description: "Start of the window." }),
          endTime: Timestamp.meta({ description: "End of the window." }),
        })
        .meta({
          description:
            "Of a declined booking: the earliest window of the same length, no earlier than the one asked for, that the group has room for.",
        })
        .optional(),
      conditions: Conditions.meta({
        description:
          "Approved (True: APPROVED; False: DECLINED; Unknown while pending, reason GroupNotFound or GroupNotReady), Cancelled, Delivered (Unknown: PROVISIONING; True: FULFILLED; False: FAILED) and Ended (True once the window has ended, or a cancelled booking's delivered instances were released early).",
      }).optional(),
      observedGeneration: Generation.meta({
        description: "The metadata.generation this status was computed from.",
      }).optional(),
    })
    .meta({ description: "Observed state of the booking. Written by the controller only." }),
  {
    cel: `!has(oldSelf.procurementStatus) || !(oldSelf.procurementStatus in ${FINAL_CEL}) || (has(self.procurementStatus) && self.procurementStatus == oldSelf.procurementStatus)`,
    message: "procurementStatus is final: a booking DECLINED, CANCELLED or FAILED never changes status",
    fieldPath: ".procurementStatus",
  },
);
export type FutureReservationStatus = z.infer<typeof FutureReservationStatus>;

export const FutureReservation = customResource(
  FUTURE_RESERVATION.kind,
  "Instances of a group booked ahead for a fixed window (Compute Engine's future reservation in calendar mode). Approved only if the group has room for the whole window.",
  FutureReservationSpec,
  FutureReservationStatus,
);
export type FutureReservation = z.infer<typeof FutureReservation>;

export const futureReservationResource: CustomResourceModel = {
  names: FUTURE_RESERVATION,
  schema: FutureReservation,
  printerColumns: [
    {
      name: "Group",
      type: "string",
      jsonPath: ".spec.instanceGroupManager",
      description: "The InstanceGroupManager.",
    },
    { name: "Count", type: "integer", jsonPath: ".spec.totalCount", description: "Instances booked." },
    {
      name: "Start",
      type: "string",
      jsonPath: ".spec.timeWindow.startTime",
      description: "Start of the window.",
    },
    { name: "End", type: "string", jsonPath: ".status.endTime", description: "End of the window." },
    {
      name: "Status",
      type: "string",
      jsonPath: ".status.procurementStatus",
      description: "Procurement status.",
    },
    {
      name: "Age",
      type: "date",
      jsonPath: ".metadata.creationTimestamp",
      description: "Time since creation.",
    },
  ],
  selectableFields: [".spec.instanceGroupManager", ".status.procurementStatus"],
};

/**
 * On a ResizeRequest the booking controller creates to deliver a booking: the booking's name. The
 * request consumes that booking's hold instead of competing with it (src/queue/booking-wait.ts).
 */
export const FUTURE_RESERVATION_LABEL = `${GROUP}/future-reservation`;

/**
 * On a delivery request: the end of its booking's window (RFC 3339). Its instances are released then,
 * not a run duration after they became ready (decide/attempt.ts), so the booking ends on time.
 */
export const WINDOW_END_ANNOTATION = `${GROUP}/window-end`;
