// Operation (Compute Engine v1, docs/design.md §3.3): what every REST mutation returns and what clients poll. Lives in
// Redis, not in the Kubernetes API, so this schema is its only definition.
import { z } from "zod";
import { Errors } from "./errors.js";
import { rule } from "./meta.js";
import type { LocationScope } from "./location.js";
import { REST_KIND, REST_RESOURCES } from "./names.js";
import { Timestamp, Uint64String } from "./primitives.js";

const RESIZE_REQUEST_OPERATIONS = {
  "compute.instanceGroupManagerResizeRequests.insert": "Creation of a resize request.",
  "compute.instanceGroupManagerResizeRequests.cancel": "Cancellation of a resize request.",
  "compute.instanceGroupManagerResizeRequests.delete": "Deletion of a resize request.",
  "compute.regionInstanceGroupManagerResizeRequests.insert": "Creation of a regional resize request.",
  "compute.regionInstanceGroupManagerResizeRequests.cancel": "Cancellation of a regional resize request.",
  "compute.regionInstanceGroupManagerResizeRequests.delete": "Deletion of a regional resize request.",
} as const;

const FUTURE_RESERVATION_OPERATIONS = {
  "compute.futureReservations.insert": "Creation of a booking (FutureReservation).",
  "compute.futureReservations.cancel": "Cancellation of a booking.",
  "compute.futureReservations.delete": "Deletion of a booking.",
} as const;

const operationTypes = <T extends Readonly<Record<string, string>>>(descriptions: T) =>
  z
    .enum(Object.keys(descriptions) as [Extract<keyof T, string>, ...Extract<keyof T, string>[]])
    .meta({ description: "The mutation the operation performs.", enumDescriptions: descriptions });

/** The mutations of a resize request: what a ResizeRequest's status records of its operations. */
export const ResizeRequestOperationType = operationTypes(RESIZE_REQUEST_OPERATIONS);

/** Every mutation this API serves: of resize requests and of bookings. */
export const OperationType = operationTypes({
  ...RESIZE_REQUEST_OPERATIONS,
  ...FUTURE_RESERVATION_OPERATIONS,
});
export type OperationType = z.infer<typeof OperationType>;
export type ResizeRequestOperationType = z.infer<typeof ResizeRequestOperationType>;

export type OperationVerb = "insert" | "cancel" | "delete";

/** The operation type of a mutation of a zonal or regional resize request. */
export function operationTypeOf(scope: LocationScope, verb: OperationVerb): ResizeRequestOperationType {
  return ResizeRequestOperationType.parse(`compute.${REST_RESOURCES[scope].requests}.${verb}`);
}

/** The mutation an operation type stands for, wherever the request lives. */
export function operationVerb(type: OperationType): OperationVerb {
  const verb = type.slice(type.lastIndexOf(".") + 1);
  if (verb !== "insert" && verb !== "cancel" && verb !== "delete") throw new Error(`unknown ${type}`);
  return verb;
}

export const OperationStatus = z.enum(["PENDING", "RUNNING", "DONE"]).meta({
  description: "Progress of the operation.",
  enumDescriptions: {
    PENDING: "Received, not started yet.",
    RUNNING: "In progress.",
    DONE: "Finished, successfully or not; error is set when it failed.",
  },
});
export type OperationStatus = z.infer<typeof OperationStatus>;

export const OperationWarning = z
  .object({
    code: z
      .enum([
        "DEPRECATED_RESOURCE_USED",
        "FIELD_VALUE_OVERRIDEN",
        "NOT_CRITICAL_ERROR",
        "NO_RESULTS_ON_PAGE",
        "PARTIAL_SUCCESS",
        "RESOURCE_NOT_DELETED",
        "UNREACHABLE",
      ])
      .meta({
        description: "Kind of the warning.",
        enumDescriptions: {
          DEPRECATED_RESOURCE_USED: "The operation used a deprecated resource.",
          FIELD_VALUE_OVERRIDEN: "A value given in the request was overridden by the server.",
          NOT_CRITICAL_ERROR: "An error occurred that did not stop the operation.",
          NO_RESULTS_ON_PAGE: "A list page is empty although more results may follow.",
          PARTIAL_SUCCESS: "Only part of the work succeeded.",
          RESOURCE_NOT_DELETED: "A resource the operation was expected to delete was kept.",
          UNREACHABLE: "A location could not be reached; its results are missing.",
        },
      })
      .optional(),
    message: z.string().meta({ description: "Human-readable description of the warning." }).optional(),
    data: z
      .array(
        z.object({
          key: z.string().meta({ description: "What the value describes, for example scope." }).optional(),
          value: z.string().meta({ description: "The value." }).optional(),
        }),
      )
      .max(64)
      .meta({ description: "Key-value details of the warning." })
      .optional(),
  })
  .meta({ description: "A non-fatal problem the operation ran into." });

/** google.rpc.Status as used per location by `setCommonInstanceMetadataOperationMetadata`. */
const RpcStatus = z
  .object({
    code: z.int32().meta({ description: "Status code (google.rpc.Code)." }).optional(),
    message: z.string().meta({ description: "Developer-facing error message in English." }).optional(),
    details: z
      .array(z.record(z.string(), z.unknown()).meta({ format: "google.protobuf.Any" }))
      .meta({ description: "Typed detail messages, each carrying its type in an @type field." })
      .optional(),
  })
  .meta({ schemaId: "Status", description: "An error status: code, message and typed details." });

export const SetCommonInstanceMetadataOperationMetadata = z
  .object({
    clientOperationId: z
      .string()
      .meta({ description: "The client-supplied id of the operation this metadata belongs to." })
      .optional(),
    perLocationOperations: z
      .record(
        z.string(),
        z
          .object({
            state: z
              .enum(["UNSPECIFIED", "PROPAGATING", "PROPAGATED", "ABANDONED", "FAILED", "DONE"])
              .meta({
                description: "State of the operation in this location.",
                enumDescriptions: {
                  UNSPECIFIED: "Unknown state.",
                  PROPAGATING: "The change is being propagated to this location.",
                  PROPAGATED: "The change reached this location.",
                  ABANDONED: "The operation was abandoned in this location.",
                  FAILED: "The operation failed in this location; error says why.",
                  DONE: "The operation finished in this location.",
                },
              })
              .optional(),
            error: RpcStatus.optional(),
          })
          .meta({
            schemaId: "SetCommonInstanceMetadataOperationMetadataPerLocationOperationInfo",
            description: "Status of the operation in one location.",
          }),
      )
      .meta({ description: "Status of the operation per location, keyed by location name." })
      .optional(),
  })
  .meta({
    schemaId: "SetCommonInstanceMetadataOperationMetadata",
    description: "Metadata of an operation that sets common instance metadata.",
  });

export const BulkInsertOperationStatus = z
  .object({
    status: z
      .enum(["STATUS_UNSPECIFIED", "CREATING", "ROLLING_BACK", "DONE"])
      .meta({
        description: "Whether the creation of instances rolls forward or back.",
        enumDescriptions: {
          STATUS_UNSPECIFIED: "Unknown.",
          CREATING: "Instances are being created.",
          ROLLING_BACK: "The attempt failed and created instances are being deleted.",
          DONE: "Creation finished.",
        },
      })
      .optional(),
    targetVmCount: z.int32().min(0).meta({ description: "Instances the operation creates." }).optional(),
    createdVmCount: z.int32().min(0).meta({ description: "Instances created and ready so far." }).optional(),
    failedToCreateVmCount: z
      .int32()
      .min(0)
      .meta({ description: "Instances that could not be created." })
      .optional(),
    deletedVmCount: z
      .int32()
      .min(0)
      .meta({ description: "Instances deleted again while rolling back." })
      .optional(),
  })
  .meta({
    schemaId: "BulkInsertOperationStatus",
    description: "Instance counts of a bulk creation in one location.",
  });
export type BulkInsertOperationStatus = z.infer<typeof BulkInsertOperationStatus>;

export const InstancesBulkInsertOperationMetadata = z
  .object({
    perLocationStatus: z
      .record(z.string(), BulkInsertOperationStatus)
      .meta({
        description:
          "Progress of instance creation per location, keyed by location name (the zone of the group for resize requests).",
      })
      .optional(),
  })
  .meta({
    schemaId: "InstancesBulkInsertOperationMetadata",
    description: "Metadata of an operation that creates instances; resize requests report provisioning here.",
  });

/** One of healthInfo's enums, with the compute API's values (never set here, so only documented). */
function healthEnum<const V extends string>(description: string, values: Readonly<Record<V, string>>) {
  const names = Object.keys(values) as [V, ...V[]];
  return z.enum(names).meta({ description, enumDescriptions: values }).optional();
}

/**
 * The compute API's metadata for health and version queries of other resources. Never set here (no
 * method of this API reports them); modelled so the Operation schema is the compute API's, field for
 * field.
 */
export const GetHealthOperationMetadata = z
  .object({
    healthInfo: z
      .object({
        healthStatus: healthEnum("Health status.", {
          HEALTH_STATUS_HEALTHY: "The reservation slot is healthy.",
          HEALTH_STATUS_UNHEALTHY: "The reservation slot is unhealthy.",
          HEALTH_STATUS_UNSPECIFIED: "Unspecified health status.",
        }),
        availabilitySloStatus: healthEnum("Availability SLO status.", {
          AVAILABILITY_SLO_STATUS_IN_SLO: "The slot availability is in SLO.",
          AVAILABILITY_SLO_STATUS_OUT_OF_SLO: "The slot availability is out of SLO.",
          AVAILABILITY_SLO_STATUS_SLO_UNKNOWN: "The slot availability is unknown.",
          AVAILABILITY_SLO_STATUS_UNSPECIFIED: "Unspecified availability SLO status.",
        }),
        repairCategory: healthEnum("Repair category.", {
          REPAIR_CATEGORY_CRITICAL_FAILURE: "A critical failure outside emergent maintenance.",
          REPAIR_CATEGORY_EMERGENT_MAINTENANCE: "An emergent maintenance.",
          REPAIR_CATEGORY_PLANNED_MAINTENANCE: "A planned maintenance.",
          REPAIR_CATEGORY_UNSPECIFIED: "Unspecified repair category.",
          REPAIR_CATEGORY_USER_REPORTED_FAULT: "A fault the user reported.",
        }),
        unhealthyReason: healthEnum("Why the resource is unhealthy.", {
          UNHEALTHY_REASON_PENDING_USER_APPROVAL: "A repair waits for the customer's approval.",
          UNHEALTHY_REASON_REPAIRING: "A repair is in progress.",
          UNHEALTHY_REASON_UNSCHEDULABLE: "No VM can be scheduled on the slot and no repair runs.",
          UNHEALTHY_REASON_UNSPECIFIED: "Unspecified unhealthy reason.",
        }),
        updateTime: z
          .string()
          .meta({ format: "google-datetime", description: "When the health was last updated." })
          .optional(),
      })
      .meta({ schemaId: "GetHealthOperationMetadataHealthInfo", description: "Health information." })
      .optional(),
  })
  .meta({
    schemaId: "GetHealthOperationMetadata",
    description: "Metadata of a health query. Not used by this server.",
  });

const componentVersions = (what: string) =>
  z
    .record(z.string(), z.string())
    .meta({ description: `${what} component versions, by name.` })
    .optional();

export const GetVersionOperationMetadata = z
  .object({
    inlineSbomInfo: z
      .object({
        currentComponentVersions: componentVersions("Current"),
        targetComponentVersions: componentVersions("Target"),
      })
      .meta({ schemaId: "GetVersionOperationMetadataSbomInfo", description: "Software bill of materials." })
      .optional(),
  })
  .meta({
    schemaId: "GetVersionOperationMetadata",
    description: "Metadata of a version query. Not used by this server.",
  });

const METADATA_MEMBERS = [
  "setCommonInstanceMetadataOperationMetadata",
  "instancesBulkInsertOperationMetadata",
  "getHealthOperationMetadata",
  "getVersionOperationMetadata",
] as const;

export const Operation = rule(
  z
    .object({
      kind: z
        .literal(REST_KIND.operation)
        .meta({ outputOnly: true, description: `Type of the resource: always ${REST_KIND.operation}.` }),
      id: Uint64String.meta({
        outputOnly: true,
        description: "Unique identifier of the operation, defined by the server.",
      }),
      creationTimestamp: z
        .string()
        .meta({ deprecated: true, description: "Deprecated; not set. Use insertTime." })
        .optional(),
      name: z.string().min(1).max(128).meta({ outputOnly: true, description: "Name of the operation." }),
      zone: z
        .string()
        .meta({ outputOnly: true, description: "URL of the zone of the operation, for zonal operations." })
        .optional(),
      region: z
        .string()
        .meta({
          outputOnly: true,
          description: "URL of the region of the operation, for regional operations.",
        })
        .optional(),
      clientOperationId: z
        .string()
        .meta({ outputOnly: true, description: "The requestId the client sent with the mutation, if any." })
        .optional(),
      operationType: OperationType.meta({ outputOnly: true }),
      targetLink: z
        .string()
        .meta({ outputOnly: true, description: "URL of the resource the operation changes." }),
      targetId: Uint64String.meta({
        outputOnly: true,
        description: "Identifier of the incarnation of the target resource the operation changes.",
      }).optional(),
      status: OperationStatus.meta({ outputOnly: true }),
      statusMessage: z
        .string()
        .meta({ outputOnly: true, description: "Human-readable description of the current status." })
        .optional(),
      user: z.string().meta({ outputOnly: true, description: "Who requested the operation." }),
      progress: z
        .int32()
        .min(0)
        .max(100)
        .meta({
          outputOnly: true,
          description:
            "Progress from 0 to 100. It only increases, and need not grow linearly: do not use it to predict completion.",
        })
        .optional(),
      insertTime: Timestamp.meta({
        outputOnly: true,
        description: "When the operation was requested (RFC 3339).",
      }),
      startTime: Timestamp.meta({
        outputOnly: true,
        description: "When the server started the operation (RFC 3339).",
      }).optional(),
      endTime: Timestamp.meta({
        outputOnly: true,
        description: "When the operation finished (RFC 3339).",
      }).optional(),
      error: Errors.meta({
        outputOnly: true,
        description: "Errors of the operation; present only when it failed.",
      }).optional(),
      warnings: z
        .array(OperationWarning)
        .max(64)
        .meta({ outputOnly: true, description: "Warnings encountered while processing the operation." })
        .optional(),
      httpErrorStatusCode: z
        .int32()
        .min(100)
        .max(599)
        .meta({ outputOnly: true, description: "HTTP status code of a failed operation, for example 404." })
        .optional(),
      httpErrorMessage: z
        .string()
        .meta({
          outputOnly: true,
          description: "HTTP error message of a failed operation, for example NOT FOUND.",
        })
        .optional(),
      selfLink: z.string().meta({ outputOnly: true, description: "URL of the operation." }),
      description: z
        .string()
        .meta({ outputOnly: true, description: "Description of the operation, set when it is created." })
        .optional(),
      operationGroupId: z
        .string()
        .meta({ outputOnly: true, description: "Identifier shared by related operations." })
        .optional(),
      setCommonInstanceMetadataOperationMetadata: SetCommonInstanceMetadataOperationMetadata.meta({
        outputOnly: true,
      }).optional(),
      instancesBulkInsertOperationMetadata: InstancesBulkInsertOperationMetadata.meta({
        outputOnly: true,
      }).optional(),
      getHealthOperationMetadata: GetHealthOperationMetadata.meta({ outputOnly: true }).optional(),
      getVersionOperationMetadata: GetVersionOperationMetadata.meta({ outputOnly: true }).optional(),
    })
    .meta({
      schemaId: "Operation",
      description:
        "An asynchronous operation: the result of a mutation, to poll until its status is DONE. Completed operations are kept for a limited retention period.",
    }),
  {
    // Operations are not Kubernetes objects; the CEL form only documents the rule for projections.
    cel: `!(${METADATA_MEMBERS.map((m) => `has(self.${m})`).join(" && ")})`,
    message: `at most one of ${METADATA_MEMBERS.join(", ")} may be set`,
    test: (op) => METADATA_MEMBERS.filter((m) => op[m] !== undefined).length <= 1,
  },
);
export type Operation = z.infer<typeof Operation>;
export type OperationWarning = z.infer<typeof OperationWarning>;
export type InstancesBulkInsertOperationMetadata = z.infer<typeof InstancesBulkInsertOperationMetadata>;
export type SetCommonInstanceMetadataOperationMetadata = z.infer<
  typeof SetCommonInstanceMetadataOperationMetadata
>;
