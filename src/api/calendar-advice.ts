// The compute API's `advice.calendarMode`: its request (CalendarModeAdviceRequest) and answer
// (CalendarModeAdviceResponse), every schema and field as the official compute v1 discovery document
// has them, so Google's clients call it unchanged. What this API does with each field is in its
// description (docs/booking.md "Asking for advice"): a field it cannot honour is refused, not ignored.
import { z } from "zod";

const int64 = (description: string) => z.string().meta({ format: "int64", description });
const unsupported = (what: string): string =>
  `Not supported here: a call that sets ${what} is refused (400).`;

export const FlexibleTimeRange = z
  .object({
    minDuration: z
      .string()
      .meta({
        format: "google-duration",
        description: "The shortest window wanted, e.g. 259200s (required).",
      })
      .optional(),
    maxDuration: z
      .string()
      .meta({ format: "google-duration", description: "The longest window wanted (default: minDuration)." })
      .optional(),
    startTimeNotEarlierThan: z
      .string()
      .meta({ format: "google-datetime", description: "The earliest start (default: now)." })
      .optional(),
    startTimeNotLaterThan: z
      .string()
      .meta({
        format: "google-datetime",
        description: "The latest start (default: 90 days after the earliest).",
      })
      .optional(),
  })
  .meta({ schemaId: "FlexibleTimeRange", description: "When the window may start and how long it lasts." });

const LocalSsdPartition = z
  .object({
    diskInterface: z.enum(["NVME", "SCSI"]).meta({ description: "Disk interface." }).optional(),
    diskSizeGb: int64("Disk size in GB.").optional(),
  })
  .meta({
    schemaId: "FutureResourcesSpecLocalSsdPartition",
    description: unsupported("a local SSD partition"),
  });

const SpecificSkuResources = z
  .object({
    instanceCount: int64("How many instances of the group (required, 1 or more).").optional(),
    machineType: z
      .string()
      .meta({
        description:
          "The instance group manager whose instances are asked for (its instances are the SKU); every group of the region when absent.",
      })
      .optional(),
    localSsdPartitions: z
      .array(LocalSsdPartition)
      .meta({ description: unsupported("localSsdPartitions") })
      .optional(),
  })
  .meta({ schemaId: "FutureResourcesSpecSpecificSKUResources", description: "Instances of one group." });

const AggregateResources = z
  .object({
    acceleratorCount: int64("Accelerators.").optional(),
    vmFamily: z
      .enum([
        "VM_FAMILY_CLOUD_TPU_DEVICE_CT3",
        "VM_FAMILY_CLOUD_TPU_LITE_DEVICE_CT5L",
        "VM_FAMILY_CLOUD_TPU_LITE_POD_SLICE_CT5LP",
        "VM_FAMILY_CLOUD_TPU_LITE_POD_SLICE_CT6E",
        "VM_FAMILY_CLOUD_TPU_POD_SLICE_CT3P",
        "VM_FAMILY_CLOUD_TPU_POD_SLICE_CT4P",
        "VM_FAMILY_CLOUD_TPU_POD_SLICE_CT5P",
        "VM_FAMILY_CLOUD_TPU_POD_SLICE_TPU7X",
      ])
      .meta({ description: "VM family." })
      .optional(),
    workloadType: z
      .enum(["BATCH", "SERVING", "UNSPECIFIED"])
      .meta({ description: "Workload type." })
      .optional(),
  })
  .meta({
    schemaId: "FutureResourcesSpecAggregateResources",
    description: unsupported("aggregateResources"),
  });

const TargetResources = z
  .object({
    specificSkuResources: SpecificSkuResources.optional(),
    aggregateResources: AggregateResources.optional(),
  })
  .meta({ schemaId: "FutureResourcesSpecTargetResources", description: "What is asked for." });

const LocationPreference = z
  .object({
    preference: z
      .enum(["ALLOW", "DENY", "PREFERENCE_UNSPECIFIED"])
      .meta({ description: "DENY leaves the location's groups out; ALLOW and unspecified change nothing." })
      .optional(),
  })
  .meta({
    schemaId: "FutureResourcesSpecLocationPolicyLocation",
    description: "Preference for one location.",
  });

const LocationPolicy = z
  .object({
    locations: z
      .record(z.string(), LocationPreference)
      .meta({ description: "Preferences keyed by location: zones/ZONE or regions/REGION." })
      .optional(),
  })
  .meta({ schemaId: "FutureResourcesSpecLocationPolicy", description: "Where the window may be." });

export const FutureResourcesSpec = z
  .object({
    targetResources: TargetResources.optional(),
    timeRangeSpec: FlexibleTimeRange.optional(),
    locationPolicy: LocationPolicy.optional(),
    deploymentType: z
      .enum(["DENSE", "DEPLOYMENT_TYPE_UNSPECIFIED"])
      .meta({ description: unsupported("DENSE") })
      .optional(),
  })
  .meta({ schemaId: "FutureResourcesSpec", description: "Resources wanted in the future, and when." });
export type FutureResourcesSpec = z.infer<typeof FutureResourcesSpec>;

export const CalendarModeAdviceRequest = z
  .object({
    futureResourcesSpecs: z
      .record(z.string(), FutureResourcesSpec)
      .meta({
        description: "Exactly one spec, under a key of the caller's choosing (as in the compute API).",
      })
      .optional(),
  })
  .meta({ schemaId: "CalendarModeAdviceRequest", description: "When and where a window fits." });
export type CalendarModeAdviceRequest = z.infer<typeof CalendarModeAdviceRequest>;

const OtherLocation = z
  .object({
    details: z.string().meta({ outputOnly: true, description: "Not set." }).optional(),
    status: z
      .enum([
        "CONDITIONS_NOT_MET",
        "NOT_SUPPORTED",
        "NO_CAPACITY",
        "OTHER_LOCATION_STATUS_UNDEFINED",
        "RECOMMENDED",
      ])
      .meta({ outputOnly: true, description: "Not set." })
      .optional(),
  })
  .meta({ schemaId: "FutureResourcesRecommendationOtherLocation", description: "Not set by this API." });

export const FutureResourcesRecommendation = z
  .object({
    startTime: z
      .string()
      .meta({ format: "google-datetime", outputOnly: true, description: "When the window starts." })
      .optional(),
    endTime: z
      .string()
      .meta({ format: "google-datetime", outputOnly: true, description: "When it ends." })
      .optional(),
    location: z
      .string()
      .meta({ outputOnly: true, description: "The group's location: zones/ZONE or regions/REGION." })
      .optional(),
    recommendationId: z
      .string()
      .meta({ outputOnly: true, description: "The group to book: instanceGroupManagers/NAME." })
      .optional(),
    recommendationType: z
      .enum(["FUTURE_RESERVATION", "RECOMMENDATION_TYPE_UNSPECIFIED"])
      .meta({ outputOnly: true, description: "Always FUTURE_RESERVATION: book the window with one." })
      .optional(),
    otherLocations: z
      .record(z.string(), OtherLocation)
      .meta({ outputOnly: true, description: "Not set." })
      .optional(),
  })
  .meta({ schemaId: "FutureResourcesRecommendation", description: "A window that fits, in one group." });

export const CalendarModeAdviceResponse = z
  .object({
    recommendations: z
      .array(
        z
          .object({
            recommendationsPerSpec: z
              .record(z.string(), FutureResourcesRecommendation)
              .meta({ outputOnly: true, description: "The window for the request's spec, under its key." })
              .optional(),
          })
          .meta({ schemaId: "CalendarModeRecommendation", description: "One group's window." }),
      )
      .meta({ outputOnly: true, description: "One per group with room, best first: earliest, then longest." })
      .optional(),
  })
  .meta({ schemaId: "CalendarModeAdviceResponse", description: "The windows that fit." });
export type CalendarModeAdviceResponse = z.infer<typeof CalendarModeAdviceResponse>;
