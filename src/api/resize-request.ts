// ResizeRequest (Compute Engine v1, docs/design.md §3.2) in its two representations built from the same fields: the
// Kubernetes object (spec + status) and the REST resource `InstanceGroupManagerResizeRequest`.
import { z } from "zod";
import { Conditions } from "./conditions.js";
import { customResource, type CustomResourceModel } from "./custom-resource.js";
import { Duration, kubeDuration } from "./duration.js";
import { Errors } from "./errors.js";
import { FINAL_STATES, RESIZE_REQUEST_STATES } from "./lifecycle.js";
import { rule, type RuleSpec } from "./meta.js";
import { REST_KIND, RESIZE_REQUEST } from "./names.js";
import { OperationType } from "./operation.js";
import { Count, Generation, Rfc1035Label, Timestamp, Uint64String } from "./primitives.js";

// ---- Fields shared by the Kubernetes object and the REST resource --------------------------------

const name = Rfc1035Label.meta({
  description:
    "Name of the resize request: an RFC 1035 label of 1-63 characters, unique within the group's namespace.",
});
const description = z.string().max(2048).meta({ description: "Free-form description of the request." });
const resizeBy = z.int32().min(1).meta({
  description:
    "Number of instances the request creates: the target's replicas grow by this number, all at once. Exactly one of resizeBy and instances is set.",
});
const instanceName = Rfc1035Label.meta({
  description: "Name of the instance (an RFC 1035 label), unique within the request.",
});

/** Instance lists are keyed by name: the API server rejects duplicates (list-map), zod too. */
function uniqueNames<S extends z.ZodArray<z.ZodObject<{ name: typeof instanceName }>>>(list: S): S {
  return list
    .refine((items) => new Set(items.map((i) => i.name)).size === items.length, {
      message: "instance names must be unique",
    })
    .meta({ listType: "map", listMapKeys: ["name"] });
}

const INSTANCES_DESCRIPTION =
  "The instances the request creates, one entry per instance, named (unique RFC 1035 labels); the request creates as many instances as it names. Exactly one of resizeBy and instances is set.";

/** spec.instances items: of the compute API's PerInstanceConfig only the name has a meaning here. */
const InstanceConfig = z.object({ name: instanceName }).meta({ description: "One named instance." });
const specInstances = uniqueNames(z.array(InstanceConfig).min(1).max(1000)).meta({
  description: INSTANCES_DESCRIPTION,
});

/**
 * PerInstanceConfig as the compute API has it. `fingerprint` and `status` are output-only there and
 * ignored on input; `preservedState` (stateful disks, IPs, metadata) has no meaning for a Kubernetes
 * workload, so the strict object refuses it with an error naming the field.
 */
export const PerInstanceConfig = z
  .object({
    name: instanceName,
    fingerprint: z
      .string()
      .meta({
        format: "byte",
        description: "Fingerprint of the configuration. Ignored on input; never set by this server.",
      })
      .optional(),
    status: z
      .enum(["APPLYING", "DELETING", "EFFECTIVE", "NONE", "UNAPPLIED", "UNAPPLIED_DELETION"])
      .meta({
        outputOnly: true,
        description: "Status of the per-instance configuration. Ignored on input; never set by this server.",
        enumDescriptions: {
          APPLYING: "Being applied.",
          DELETING: "Being deleted.",
          EFFECTIVE: "Effective on the instance.",
          NONE: "No per-instance configuration exists.",
          UNAPPLIED: "Set but not applied yet.",
          UNAPPLIED_DELETION: "Deleted but the deletion is not applied yet.",
        },
      })
      .optional(),
  })
  .strict()
  .meta({
    schemaId: "PerInstanceConfig",
    description:
      "One instance a resize request creates. Only name has a meaning here; preservedState is refused.",
  });
export type PerInstanceConfig = z.infer<typeof PerInstanceConfig>;

const instances = uniqueNames(z.array(PerInstanceConfig).min(1).max(1000)).meta({
  description: INSTANCES_DESCRIPTION,
});
const requestedRunDuration = Duration.meta({
  description:
    "How long the instances created by the request run. When it has elapsed after the request succeeded, the instances are removed again. Without it they stay until removed by other means.",
});

export const ResizeRequestState = z.enum(RESIZE_REQUEST_STATES).meta({
  outputOnly: true,
  description:
    "Current state of the request. SUCCEEDED, FAILED and CANCELLED are final: the state never changes again.",
  enumDescriptions: {
    CREATING: "The request exists but has not been admitted against its group yet.",
    ACCEPTED:
      "Admitted: waiting in the group's queue, or in a provisioning attempt. The Queued and Provisioning conditions tell which.",
    SUCCEEDED:
      "All requested instances were ready at once. The state stays SUCCEEDED after the run duration elapses and the instances are released.",
    FAILED: "A fatal error occurred while queueing or provisioning; status.error holds it.",
    CANCELLED: "The request was cancelled (spec.cancel or deletion); a partial scale-up was rolled back.",
  },
});
export type ResizeRequestState = z.infer<typeof ResizeRequestState>;
export { FINAL_STATES };

const kind = z.literal(REST_KIND.resizeRequest).meta({
  outputOnly: true,
  description: `Type of the resource: always ${REST_KIND.resizeRequest}.`,
});
const id = Uint64String.meta({
  outputOnly: true,
  description: "Unique identifier of the request, defined by the server (uint64 as a decimal string).",
});
const creationTimestamp = Timestamp.meta({
  outputOnly: true,
  description: "When the request was created (RFC 3339).",
});
const zone = z
  .string()
  .meta({ outputOnly: true, description: "URL of the zone of the request's group, for zonal requests." });
const region = z.string().meta({
  outputOnly: true,
  description: "URL of the region of the request's group, for regional requests.",
});
const selfLink = z
  .string()
  .meta({ outputOnly: true, description: "URL of the request, defined by the server." });
const selfLinkWithId = z.string().meta({
  outputOnly: true,
  description: "URL of the request using its numeric id instead of its name, defined by the server.",
});
const error = Errors.meta({
  outputOnly: true,
  description:
    "Fatal errors from the queueing or provisioning phase that moved the request to FAILED. Final: never removed, since a failed request does not retry.",
});
const lastAttempt = z
  .object({
    error: Errors.meta({
      outputOnly: true,
      description: "Errors of the last attempt, if it failed.",
    }).optional(),
  })
  .meta({
    schemaId: "InstanceGroupManagerResizeRequestStatusLastAttempt",
    outputOnly: true,
    description:
      "The last attempt to fulfil the request. Temporary: replaced as retries happen, possibly stale because retries are infrequent, and cleared once the request reaches a final state (a FAILED request keeps its error in error only).",
  });

const EXACTLY_ONE_SIZE: RuleSpec<{ readonly resizeBy?: number; readonly instances?: readonly unknown[] }> = {
  cel: "has(self.resizeBy) != has(self.instances)",
  message: "exactly one of resizeBy or instances must be set",
  test: (r) => (r.resizeBy === undefined) !== (r.instances === undefined),
};

// ---- The Kubernetes object -----------------------------------------------------------------------

const specFields = {
  instanceGroupManager: Rfc1035Label.meta({
    description: "Name of the InstanceGroupManager, in the same namespace, whose target the request grows.",
  }),
  resizeBy: resizeBy.optional(),
  instances: specInstances.optional(),
  requestedRunDuration: requestedRunDuration.optional(),
  description: description.optional(),
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
function unchanged([field, schema]: [string, z.ZodType]): RuleSpec<unknown> {
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
      {
        cel: "!has(oldSelf.cancel) || !oldSelf.cancel || (has(self.cancel) && self.cancel)",
        message: "cancel cannot be set back to false once it is true",
        fieldPath: ".cancel",
      },
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

export const OperationRef = z
  .object({
    name: z.string().min(1).max(128).meta({ description: "Name of the operation." }),
    operationType: OperationType,
  })
  .meta({ description: "A REST operation that changed this request." });
export type OperationRef = z.infer<typeof OperationRef>;

const FINAL_STATES_CEL = `[${FINAL_STATES.map((s) => `'${s}'`).join(", ")}]`;

export const ResizeRequestStatus = rule(
  rule(
    z
      .object({
        kind: kind.optional(),
        id: id.optional(),
        creationTimestamp: creationTimestamp.optional(),
        zone: zone.optional(),
        region: region.optional(),
        state: ResizeRequestState.optional(),
        reason: z
          .string()
          .max(128)
          .regex(/^[A-Za-z]([A-Za-z0-9_]*[A-Za-z0-9_])?$/)
          .meta({
            description:
              "CamelCase reason for the current state, for example WaitingForCapacity, Provisioning or QuotaExceeded.",
          })
          .optional(),
        error: error.optional(),
        lastAttempt: lastAttempt.optional(),
        selfLink: selfLink.optional(),
        selfLinkWithId: selfLinkWithId.optional(),
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
            "Observations of the request: Accepted, Queued, Provisioning, Succeeded, Released, Failed, Cancelled.",
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

// ---- The REST resource ---------------------------------------------------------------------------

const restInputFields = {
  name,
  description: description.optional(),
  resizeBy: resizeBy.optional(),
  instances: instances.optional(),
  requestedRunDuration: requestedRunDuration.optional(),
};

/** The body of `resizeRequests.insert`: the input fields; output-only fields are dropped. */
export const ResizeRequestInsert = rule(
  z.object(restInputFields).meta({ description: "A resize request as sent to insert." }),
  EXACTLY_ONE_SIZE,
);
export type ResizeRequestInsert = z.infer<typeof ResizeRequestInsert>;

export const InstanceGroupManagerResizeRequestStatus = z
  .object({ error: error.optional(), lastAttempt: lastAttempt.optional() })
  .meta({
    schemaId: "InstanceGroupManagerResizeRequestStatus",
    outputOnly: true,
    description: "Status of the request.",
  });

/** The REST representation (`compute#instanceGroupManagerResizeRequest`), as get and list return it. */
export const InstanceGroupManagerResizeRequest = rule(
  z
    .object({
      kind: kind.optional(),
      id: id.optional(),
      creationTimestamp: creationTimestamp.optional(),
      name: restInputFields.name,
      description: restInputFields.description,
      zone: zone.optional(),
      region: region.optional(),
      resizeBy: restInputFields.resizeBy,
      instances: restInputFields.instances,
      requestedRunDuration: restInputFields.requestedRunDuration,
      state: ResizeRequestState.optional(),
      status: InstanceGroupManagerResizeRequestStatus.optional(),
      selfLink: selfLink.optional(),
      selfLinkWithId: selfLinkWithId.optional(),
    })
    .meta({
      schemaId: "InstanceGroupManagerResizeRequest",
      description:
        "A request to grow a managed instance group by a number of instances at once, optionally for a bounded run duration.",
    }),
  EXACTLY_ONE_SIZE,
);
export type InstanceGroupManagerResizeRequest = z.infer<typeof InstanceGroupManagerResizeRequest>;
