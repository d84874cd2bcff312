// The compute API's FutureReservation and every schema below it, field for field as the official
// compute v1 discovery document has them, so Google's clients read and send them unchanged
// (test/unit/discovery/conformance.test.ts compares the served document with the official one). The
// schemas are built from a table of field types. A field this API gives a meaning to is described in
// SUPPORTED; every other field is served so the schema stays Google's, and an insert that sets one is
// refused with 400 naming it (future-reservation-rest.ts): never silently ignored.
import { z } from "zod";
import { Duration } from "./duration.js";
import { REST_KIND } from "./names.js";
import { OperationWarning } from "./operation.js";

/** procurementStatus as the official document lists it (ours use a subset: future-reservation.ts). */
const OFFICIAL_PROCUREMENT_STATUSES = [
  "APPROVED",
  "CANCELLED",
  "COMMITTED",
  "DECLINED",
  "DRAFTING",
  "FAILED",
  "FAILED_PARTIALLY_FULFILLED",
  "FULFILLED",
  "PENDING_AMENDMENT_APPROVAL",
  "PENDING_APPROVAL",
  "PROCUREMENT_STATUS_UNSPECIFIED",
  "PROCURING",
  "PROVISIONING",
] as const;

/** A field's wire type: a scalar, a schema of the table (capitalised), an enum, a list or a map. */
type FieldType = string | readonly string[] | { readonly array: FieldType } | { readonly map: FieldType };

const TABLE: Readonly<Record<string, Readonly<Record<string, FieldType>>>> = {
  AcceleratorConfig: {
    acceleratorCount: "int32",
    acceleratorType: "string",
  },
  AllocationAggregateReservation: {
    inUseResources: { array: "AllocationAggregateReservationReservedResourceInfo" },
    reservedResources: { array: "AllocationAggregateReservationReservedResourceInfo" },
    vmFamily: [
      "VM_FAMILY_CLOUD_TPU_DEVICE_CT3",
      "VM_FAMILY_CLOUD_TPU_LITE_DEVICE_CT5L",
      "VM_FAMILY_CLOUD_TPU_LITE_POD_SLICE_CT5LP",
      "VM_FAMILY_CLOUD_TPU_LITE_POD_SLICE_CT6E",
      "VM_FAMILY_CLOUD_TPU_POD_SLICE_CT3P",
      "VM_FAMILY_CLOUD_TPU_POD_SLICE_CT4P",
      "VM_FAMILY_CLOUD_TPU_POD_SLICE_CT5P",
      "VM_FAMILY_CLOUD_TPU_POD_SLICE_TPU7X",
    ],
    workloadType: ["BATCH", "SERVING", "UNSPECIFIED"],
  },
  AllocationAggregateReservationReservedResourceInfo: {
    accelerator: "AllocationAggregateReservationReservedResourceInfoAccelerator",
  },
  AllocationAggregateReservationReservedResourceInfoAccelerator: {
    acceleratorCount: "int32",
    acceleratorType: "string",
  },
  AllocationSpecificSKUAllocationAllocatedInstancePropertiesReservedDisk: {
    diskSizeGb: "int64",
    interface: ["NVME", "SCSI"],
  },
  AllocationSpecificSKUAllocationReservedInstanceProperties: {
    guestAccelerators: { array: "AcceleratorConfig" },
    localSsds: { array: "AllocationSpecificSKUAllocationAllocatedInstancePropertiesReservedDisk" },
    locationHint: "string",
    machineType: "string",
    minCpuPlatform: "string",
  },
  FutureReservation: {
    aggregateReservation: "AllocationAggregateReservation",
    autoCreatedReservationsDeleteTime: "string",
    autoCreatedReservationsDuration: "Duration",
    autoDeleteAutoCreatedReservations: "boolean",
    colocationResource: "string",
    commitmentInfo: "FutureReservationCommitmentInfo",
    confidentialComputeType: [
      "CONFIDENTIAL_COMPUTE_TYPE_BMSAI",
      "CONFIDENTIAL_COMPUTE_TYPE_TDX",
      "CONFIDENTIAL_COMPUTE_TYPE_UNSPECIFIED",
    ],
    creationTimestamp: "string",
    deploymentType: ["DENSE", "DEPLOYMENT_TYPE_UNSPECIFIED"],
    description: "string",
    enableEmergentMaintenance: "boolean",
    id: "uint64",
    kind: "string",
    name: "string",
    namePrefix: "string",
    params: "FutureReservationParams",
    planningStatus: ["DRAFT", "PLANNING_STATUS_UNSPECIFIED", "SUBMITTED"],
    reservationMode: ["CALENDAR", "DEFAULT", "RESERVATION_MODE_UNSPECIFIED"],
    reservationName: "string",
    resourceMetadata: "ResourceMetadata",
    resourceName: "string",
    schedulingType: ["GROUPED", "GROUP_MAINTENANCE_TYPE_UNSPECIFIED", "INDEPENDENT"],
    selfLink: "string",
    selfLinkWithId: "string",
    shareSettings: "ShareSettings",
    specificReservationRequired: "boolean",
    specificSkuProperties: "FutureReservationSpecificSKUProperties",
    status: "FutureReservationStatus",
    storagePoolProperties: "FutureReservationStoragePoolProperties",
    timeWindow: "FutureReservationTimeWindow",
    zone: "string",
  },
  FutureReservationCommitmentInfo: {
    commitmentName: "string",
    commitmentPlan: ["INVALID", "THIRTY_SIX_MONTH", "TWELVE_MONTH"],
    previousCommitmentTerms: ["EXTEND", "PREVIOUSCOMMITMENTTERM_UNSPECIFIED"],
  },
  FutureReservationParams: {
    resourceManagerTags: { map: "string" },
  },
  FutureReservationSpecificSKUProperties: {
    instanceProperties: "AllocationSpecificSKUAllocationReservedInstanceProperties",
    sourceInstanceTemplate: "string",
    totalCount: "int64",
  },
  FutureReservationStatus: {
    amendmentStatus: [
      "AMENDMENT_APPROVED",
      "AMENDMENT_DECLINED",
      "AMENDMENT_IN_REVIEW",
      "AMENDMENT_STATUS_UNSPECIFIED",
    ],
    autoCreatedReservations: { array: "string" },
    exapoolProvisionedCapacityGb: "StoragePoolExapoolProvisionedCapacityGb",
    existingMatchingUsageInfo: "FutureReservationStatusExistingMatchingUsageInfo",
    fulfilledCount: "int64",
    lastKnownGoodState: "FutureReservationStatusLastKnownGoodState",
    lockTime: "string",
    procurementStatus: OFFICIAL_PROCUREMENT_STATUSES,
    specificSkuProperties: "FutureReservationStatusSpecificSKUProperties",
    storagePoolProvisionedCapacity: "FutureReservationStoragePoolProvisionedCapacity",
  },
  FutureReservationStatusExistingMatchingUsageInfo: {
    count: "int64",
    timestamp: "string",
  },
  FutureReservationStatusLastKnownGoodState: {
    description: "string",
    existingMatchingUsageInfo: "FutureReservationStatusExistingMatchingUsageInfo",
    futureReservationSpecs: "FutureReservationStatusLastKnownGoodStateFutureReservationSpecs",
    lockTime: "string",
    namePrefix: "string",
    procurementStatus: OFFICIAL_PROCUREMENT_STATUSES,
  },
  FutureReservationStatusLastKnownGoodStateFutureReservationSpecs: {
    shareSettings: "ShareSettings",
    specificSkuProperties: "FutureReservationSpecificSKUProperties",
    timeWindow: "FutureReservationTimeWindow",
  },
  FutureReservationStatusSpecificSKUProperties: {
    sourceInstanceTemplateId: "string",
  },
  FutureReservationStoragePoolProperties: {
    requestedExapoolProvisionedCapacityGb: "StoragePoolExapoolProvisionedCapacityGb",
    requestedStoragePoolProvisionedCapacity: "FutureReservationStoragePoolProvisionedCapacity",
    storagePoolType: "string",
  },
  FutureReservationStoragePoolProvisionedCapacity: {
    poolProvisionedCapacityGb: "int64",
    poolProvisionedIops: "int64",
    poolProvisionedThroughput: "int64",
  },
  FutureReservationTimeWindow: {
    duration: "Duration",
    endTime: "string",
    startTime: "string",
  },
  ResourceMetadata: {
    apiVersion: "string",
    resourceType: "string",
  },
  ShareSettings: {
    projectMap: { map: "ShareSettingsProjectConfig" },
    shareType: ["LOCAL", "ORGANIZATION", "SHARE_TYPE_UNSPECIFIED", "SPECIFIC_PROJECTS"],
  },
  ShareSettingsProjectConfig: {
    projectId: "string",
  },
  StoragePoolExapoolProvisionedCapacityGb: {
    capacityOptimized: "int64",
    readOptimized: "int64",
    writeOptimized: "int64",
  },
};

/** The fields this API serves a meaning for, with what they mean here (docs/rest.md "futureReservations"). */
const SUPPORTED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  FutureReservation: {
    kind: "[Output Only] Type of the resource: always compute#futureReservation.",
    id: "[Output Only] Unique identifier, derived from the FutureReservation's uid.",
    creationTimestamp: "[Output Only] Creation time (RFC 3339).",
    name: "Name of the booking: the FutureReservation's name in the project's namespace (RFC 1035, required).",
    description: "Free text about the booking (at most 2048 characters).",
    zone: "[Output Only] URL of the zone: the zone of the booked group.",
    selfLink: "[Output Only] URL of this booking.",
    selfLinkWithId: "[Output Only] URL of this booking by its numeric id.",
    reservationMode: "CALENDAR, the only mode here (also when left out); any other value is refused (400).",
    planningStatus: "[Output Only] Always SUBMITTED: bookings are decided at once; DRAFT is refused (400).",
    timeWindow: "When the instances are booked (required).",
    specificSkuProperties:
      "What is booked: totalCount instances of the group named by instanceProperties.machineType (required).",
    status: "[Output Only] Where the booking stands.",
  },
  FutureReservationSpecificSKUProperties: {
    totalCount: "Instances booked for the window: a whole number, 1 to 2147483647 (required).",
    instanceProperties: "The group whose instances are booked (required): its machineType names it.",
  },
  AllocationSpecificSKUAllocationReservedInstanceProperties: {
    machineType:
      "Name of the InstanceGroupManager in the project's namespace, in the call's zone, whose instances are booked: the group is the SKU, as in advice.calendarMode (required).",
  },
  FutureReservationTimeWindow: {
    startTime: "Start of the window (RFC 3339, required).",
    endTime: "End of the window (RFC 3339), after startTime. Exactly one of endTime and duration is set.",
    duration: "Length of the window from startTime. Exactly one of endTime and duration is set.",
  },
  FutureReservationStatus: {
    procurementStatus:
      "[Output Only] PENDING_APPROVAL, APPROVED, DECLINED, PROVISIONING, FULFILLED, CANCELLED or FAILED (docs/booking.md); the other values are never reported.",
  },
};

const NOT_SUPPORTED = "Not supported here: an insert that sets it is refused (400); never set in answers.";

/** What each schema is, as the discovery document describes the type. */
const SCHEMA_DESCRIPTIONS: Readonly<Record<string, string>> = {
  FutureReservation:
    "A booking of a group's instances for a window ahead, in calendar mode: a FutureReservation (docs/booking.md).",
  FutureReservationSpecificSKUProperties: "What is booked: a count of the group's instances.",
  AllocationSpecificSKUAllocationReservedInstanceProperties: "The instances booked: those of one group.",
  FutureReservationTimeWindow: "When the instances are booked: 1 s to 90 days.",
  FutureReservationStatus: "Where the booking stands.",
};

const built = new Map<string, z.ZodType>();

/** A schema of the table as a zod object named by its schemaId, built once. */
function schema(name: string): z.ZodType {
  if (name === "Duration") return Duration;
  const known = built.get(name);
  if (known) return known;
  const fields = TABLE[name];
  if (!fields) throw new Error(`no schema ${name} in the FutureReservation table`);
  const supported = SUPPORTED[name] ?? {};
  const shape = Object.fromEntries(
    Object.entries(fields).map(([field, type]) => {
      const said = supported[field];
      const outputOnly = said?.startsWith("[Output Only] ") ?? false;
      const description = said?.replace(/^\[Output Only\] /, "") ?? NOT_SUPPORTED;
      const wire =
        name === "FutureReservation" && field === "kind"
          ? z.literal(REST_KIND.futureReservation)
          : fieldSchema(type);
      return [field, wire.meta({ description, ...(outputOnly && { outputOnly }) }).optional()];
    }),
  );
  const object = z.object(shape).meta({
    schemaId: name,
    description: SCHEMA_DESCRIPTIONS[name] ?? `Not supported here (the compute API's ${name}).`,
  });
  built.set(name, object);
  return object;
}

const isEnum = (type: FieldType): type is readonly string[] => Array.isArray(type);

function fieldSchema(type: FieldType): z.ZodType {
  if (typeof type === "string") {
    if (/^[A-Z]/.test(type)) return schema(type);
    if (type === "int64" || type === "uint64") return z.string().meta({ format: type });
    if (type === "int32") return z.int32();
    if (type === "boolean") return z.boolean();
    return z.string();
  }
  if (isEnum(type)) return z.enum(type);
  if ("array" in type) return z.array(fieldSchema(type.array));
  return z.record(z.string(), fieldSchema(type.map));
}

/** The wire schema of `FutureReservation`, as insert takes it and get and list answer it. */
export const FutureReservationWire = schema("FutureReservation");

export const FutureReservationsListResponse = z
  .object({
    kind: z.literal(REST_KIND.futureReservationList).meta({
      outputOnly: true,
      description: `Type of the resource: always ${REST_KIND.futureReservationList}.`,
    }),
    id: z.string().meta({ outputOnly: true, description: "Unique identifier of the listing." }).optional(),
    items: z.array(FutureReservationWire).meta({ description: "The bookings of this page." }).optional(),
    nextPageToken: z
      .string()
      .meta({
        outputOnly: true,
        description:
          "Present when more results exist: pass it as pageToken to get the next page. Only valid with the same filter and orderBy.",
      })
      .optional(),
    selfLink: z.string().meta({ outputOnly: true, description: "URL of this listing." }).optional(),
    warning: OperationWarning.meta({ outputOnly: true }).optional(),
    etag: z.string().meta({ outputOnly: true, description: "Not set by this server." }).optional(),
    unreachables: z
      .array(z.string())
      .meta({ outputOnly: true, description: "Never set here: one cluster answers for the zone." })
      .optional(),
  })
  .meta({ schemaId: "FutureReservationsListResponse", description: "A page of the bookings of a zone." });

/** Every field name of a schema of the table: what the served schema offers. */
export function wireFields(name: string): readonly string[] {
  return Object.keys(TABLE[name] ?? {});
}
