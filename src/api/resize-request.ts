// ResizeRequest (Compute Engine v1, docs/design.md §3.2) as a Kubernetes object: spec, status (with the
// records that make a scale change crash-safe) and the custom resource kubectl shows. The REST resource
// built from the same fields is in resize-request-rest.ts.
import { z } from "zod";
import { Conditions } from "./conditions.js";
import { customResource, type CustomResourceModel } from "./custom-resource.js";
import { kubeDuration } from "./duration.js";
import { FINAL_STATES } from "./lifecycle.js";
import { rule, type RuleSpec } from "./meta.js";
import { RESIZE_REQUEST } from "./names.js";
import { ResizeRequestOperationType } from "./operation.js";
import { Count, Generation, Rfc1035Label, Timestamp } from "./primitives.js";
import { EXACTLY_ONE_SIZE, instanceList, instanceName, sharedField } from "./resize-request-fields.js";

/** spec.instances items: of the compute API's PerInstanceConfig only the name has a meaning here. */
const InstanceConfig = z.object({ name: instanceName }).meta({ description: "One named instance." });
const specInstances = instanceList(InstanceConfig);

const specFields = {
  instanceGroupManager: Rfc1035Label.meta({
    description: "Name of the InstanceGroupManager, in the same namespace, whose target the request grows.",
  }),
  resizeBy: sharedField.resizeBy.optional(),
  instances: specInstances.optional(),
  requestedRunDuration: sharedField.requestedRunDuration.optional(),
  description: sharedField.description.optional(),
  maxQueueDuration: kubeDuration({ min: "1s", max: "87600h" })
    .meta({
      description:
        "Queue deadline: if the request is still waiting in its group's queue (not provisioning) this long after creation, it goes FAILED. Defaults to the group's spec.maxQueueDuration; no deadline when neither is set. Kubernetes API only (REST inserts get the group's default).",
    })
    .optional(),
  cancel: z
    .boolean()
    .meta({
      description:
        "Set to true to cancel the request: a queued request leaves the queue, a partial scale-up is rolled back, and the state becomes CANCELLED. The only field that may change after creation, and only from false to true.",
    })
    .default(false),
};

/**
 * Transition rule: a spec field other than cancel keeps its value, and its presence, forever. It sits
 * on spec rather than on the field because the API server skips a field's transition rules when the
 * field is added or removed.
 */
export function unchanged([field, schema]: [string, z.ZodType]): RuleSpec<unknown> {
  const same = `self.${field} == oldSelf.${field}`;
  return {
    cel:
      schema instanceof z.ZodOptional
        ? `has(self.${field}) == has(oldSelf.${field}) && (!has(self.${field}) || ${same})`
        : same,
    message: `${field} is immutable: only cancel may change after creation`,
    fieldPath: `.${field}`,
  };
}

/** Transition rule: spec.cancel goes from false to true only (a FutureReservation's cancel too). */
export const CANCEL_STAYS: RuleSpec<unknown> = {
  cel: "!has(oldSelf.cancel) || !oldSelf.cancel || (has(self.cancel) && self.cancel)",
  message: "cancel cannot be set back to false once it is true",
  fieldPath: ".cancel",
};

export const ResizeRequestSpec = Object.entries(specFields)
  .filter(([field]) => field !== "cancel")
  .reduce(
    (spec, entry) => rule(spec, unchanged(entry)),
    rule(
      rule(
        z.object(specFields).meta({
          description: "What the request asks for. Immutable after creation except cancel.",
        }),
        { ...EXACTLY_ONE_SIZE, fieldPath: ".resizeBy" },
      ),
      CANCEL_STAYS,
    ),
  );

const replicas = {
  baseReplicas: Count.meta({ description: "The target's desired replicas read just before the change." }),
  targetReplicas: Count.meta({ description: "The target's desired replicas the change sets." }),
  startedTime: Timestamp.meta({ description: "When the change was recorded, before it was applied." }),
  appliedTime: Timestamp.meta({
    description: "When the change was confirmed applied through /scale.",
  }).optional(),
};

export const ProvisioningPhase = z.enum(["Applying", "Applied", "RollingBack", "RolledBack"]).meta({
  description: "Where the attempt's scale change stands.",
  enumDescriptions: {
    Applying:
      "Recorded, not yet confirmed applied: after a restart the controller re-checks /scale before writing it.",
    Applied:
      "The raised replicas are set on the target; the attempt waits for the instances to become ready.",
    RollingBack: "The attempt timed out or was cancelled; the increase is being removed from the target.",
    RolledBack: "The increase was removed; the request goes back to the queue or to its final state.",
  },
});
export type ProvisioningPhase = z.infer<typeof ProvisioningPhase>;

export const Provisioning = z
  .object({
    attempt: z.int32().min(1).meta({ description: "Number of this attempt, starting at 1." }),
    phase: ProvisioningPhase,
    ...replicas,
    deadline: Timestamp.meta({
      description:
        "When the attempt gives up if not all instances are ready: appliedTime plus the group's provisioningTimeout.",
    }).optional(),
  })
  .meta({
    description:
      "The scale change of the current provisioning attempt, recorded before it is applied and updated after (each write guarded by resourceVersion), so a restart never applies it twice or loses it.",
  });
export type Provisioning = z.infer<typeof Provisioning>;

export const ReleasePhase = z.enum(["Applying", "Applied"]).meta({
  description: "Where the release's scale change stands.",
  enumDescriptions: {
    Applying: "Recorded, not yet confirmed applied.",
    Applied: "The target's replicas were lowered; the instances are released.",
  },
});
export type ReleasePhase = z.infer<typeof ReleasePhase>;

export const Release = z.object({ phase: ReleasePhase, ...replicas }).meta({
  description:
    "The scale-down that removes the request's instances after its run duration, recorded before and after it is applied. Never lowers the target below the group's minSize.",
});
export type Release = z.infer<typeof Release>;

/** status.instances holds at most this many; instancesTruncated says when there are more. */
export const MAX_LISTED_INSTANCES = 500;

export const InstanceRef = z
  .object({
    kind: z
      .string()
      .min(1)
      .max(63)
      .meta({ description: "Kind of the instance object: Node, Pod or Machine." }),
    name: z.string().min(1).max(253).meta({ description: "Name of the instance object." }),
  })
  .meta({ description: "One instance the request added." });
export type InstanceRef = z.infer<typeof InstanceRef>;

export const OperationRef = z
  .object({
    name: z.string().min(1).max(128).meta({ description: "Name of the operation." }),
    operationType: ResizeRequestOperationType,
  })
  .meta({ description: "A REST operation that changed this request." });
export type OperationRef = z.infer<typeof OperationRef>;

const FINAL_STATES_CEL = `[${FINAL_STATES.map((s) => `'${s}'`).join(", ")}]`;

export const ResizeRequestStatus = rule(
  rule(
    z
      .object({
        kind: sharedField.kind.optional(),
        id: sharedField.id.optional(),
        creationTimestamp: sharedField.creationTimestamp.optional(),
        zone: sharedField.zone.optional(),
        region: sharedField.region.optional(),
        state: sharedField.state.optional(),
        reason: z
          .string()
          .max(128)
          .regex(/^[A-Za-z]([A-Za-z0-9_]*[A-Za-z0-9_])?$/)
          .meta({
            description:
              "CamelCase reason for the current state, for example WaitingForCapacity, Provisioning or QuotaExceeded.",
          })
          .optional(),
        error: sharedField.error.optional(),
        lastAttempt: sharedField.lastAttempt.optional(),
        selfLink: sharedField.selfLink.optional(),
        selfLinkWithId: sharedField.selfLinkWithId.optional(),
        attempts: Count.meta({ description: "Provisioning attempts started so far." }).optional(),
        nextAttemptTime: Timestamp.meta({
          description: "Earliest time of the next attempt after a failed one (exponential backoff).",
        }).optional(),
        provisioning: Provisioning.optional(),
        provisioningStartedTime: Timestamp.meta({
          description:
            "When the attempt that succeeded started; succeededTime minus this is how long provisioning took (the queue model's attempt duration).",
        }).optional(),
        succeededTime: Timestamp.meta({
          description: "When all instances were ready and the request succeeded.",
        }).optional(),
        runUntil: Timestamp.meta({
          description: "When the instances are released: succeededTime plus spec.requestedRunDuration.",
        }).optional(),
        release: Release.optional(),
        instances: z
          .array(InstanceRef)
          .max(MAX_LISTED_INSTANCES)
          .meta({
            description: `The instances the request added, labelled with its name, when its group tells them apart (docs/lifecycle.md "Whose instances"); at most ${MAX_LISTED_INSTANCES}.`,
          })
          .optional(),
        instancesTruncated: z
          .boolean()
          .meta({ description: `True when the request holds more than ${MAX_LISTED_INSTANCES} instances.` })
          .optional(),
        operations: z
          .array(OperationRef)
          .max(16)
          .meta({
            description: "The REST operations of this request (insert, cancel, delete), oldest first.",
            listType: "map",
            listMapKeys: ["name"],
          })
          .optional(),
        conditions: Conditions.meta({
          description:
            "Observations of the request: Accepted, Queued, Provisioning, Succeeded, Released, Failed, Cancelled; InstancesReplaced when an earlier request's release lowered a StatefulSet and took this request's pods, its pods taking their place (the message names both).",
        }).optional(),
        observedGeneration: Generation.meta({
          description: "The metadata.generation this status was computed from.",
        }).optional(),
      })
      .meta({ description: "Observed state of the request. Written by the controller only." }),
    {
      cel: `!has(oldSelf.state) || !(oldSelf.state in ${FINAL_STATES_CEL}) || (has(self.state) && self.state == oldSelf.state)`,
      message: "state is final: a request in SUCCEEDED, FAILED or CANCELLED never changes state",
      fieldPath: ".state",
    },
  ),
  {
    cel: "!has(oldSelf.error) || has(self.error)",
    message: "error is final and cannot be removed",
    fieldPath: ".error",
  },
);

export const ResizeRequest = customResource(
  RESIZE_REQUEST.kind,
  "A request for a number of instances of a group, all at once, optionally for a bounded run duration. Queued until the group has room, then provisioned all or nothing.",
  ResizeRequestSpec,
  ResizeRequestStatus,
);

export type ResizeRequestSpec = z.infer<typeof ResizeRequestSpec>;
export type ResizeRequestStatus = z.infer<typeof ResizeRequestStatus>;
export type ResizeRequest = z.infer<typeof ResizeRequest>;

export const resizeRequestResource: CustomResourceModel = {
  names: RESIZE_REQUEST,
  schema: ResizeRequest,
  printerColumns: [
    {
      name: "Group",
      type: "string",
      jsonPath: ".spec.instanceGroupManager",
      description: "The InstanceGroupManager.",
    },
    { name: "Resize-By", type: "integer", jsonPath: ".spec.resizeBy", description: "Instances requested." },
    { name: "State", type: "string", jsonPath: ".status.state", description: "Current state." },
    {
      name: "Reason",
      type: "string",
      jsonPath: ".status.reason",
      description: "Reason for the current state.",
    },
    {
      name: "Run-Until",
      type: "string",
      jsonPath: ".status.runUntil",
      description: "When the instances are released.",
      priority: 1,
    },
    {
      name: "Age",
      type: "date",
      jsonPath: ".metadata.creationTimestamp",
      description: "Time since creation.",
    },
  ],
  // The controller lists a group's requests, and the REST API the requests of one group or state.
  selectableFields: [".spec.instanceGroupManager", ".status.state"],
};
