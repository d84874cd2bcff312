// Operation (Compute Engine v1, docs/design.md §3.3): what every REST mutation returns and what clients poll. Lives in
// Redis, not in the Kubernetes API, so this schema is its only definition.
import { z } from "zod";
import { Errors } from "./errors.js";
import { rule } from "./meta.js";
import type { LocationScope } from "./location.js";
import { REST_KIND, REST_RESOURCES } from "./names.js";
import { Timestamp, Uint64String } from "./primitives.js";
import {
  GetHealthOperationMetadata,
  GetVersionOperationMetadata,
  InstancesBulkInsertOperationMetadata,
  SetCommonInstanceMetadataOperationMetadata,
} from "./operation-metadata.js";

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
