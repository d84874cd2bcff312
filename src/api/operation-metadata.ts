// The per-method metadata an Operation may carry (Compute Engine v1's `*OperationMetadata` schemas), as
// the official document declares them: a resize request's insert fills instancesBulkInsertOperationMetadata;
// the others are declared for wire compatibility only. Split from operation.ts, which holds the Operation.
import { z } from "zod";

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

export type InstancesBulkInsertOperationMetadata = z.infer<typeof InstancesBulkInsertOperationMetadata>;
export type SetCommonInstanceMetadataOperationMetadata = z.infer<
  typeof SetCommonInstanceMetadataOperationMetadata
>;
