// Compute Engine's error structure (docs/design.md §3.4), shared by ResizeRequest `status.error`,
// `status.lastAttempt.error` and `Operation.error`.
import { z } from "zod";
import { boundedMap, celString, rule } from "./meta.js";

/** Error codes the operator reports. `code` stays an open string, as in the Google API. */
export const ErrorCode = {
  /** The request can never fit: it asks for more than the group's maxSize allows. Carries quotaInfo. */
  QUOTA_EXCEEDED: "QUOTA_EXCEEDED",
  /** The group or its target workload does not exist. */
  RESOURCE_NOT_FOUND: "RESOURCE_NOT_FOUND",
  /** The target workload has no /scale subresource. */
  UNSUPPORTED_OPERATION: "UNSUPPORTED_OPERATION",
  /**
   * An attempt's new instances could not be scheduled: rolled back at its provisioningTimeout, or after
   * the group's unschedulableGracePeriod when nothing will add capacity.
   */
  ZONE_RESOURCE_POOL_EXHAUSTED: "ZONE_RESOURCE_POOL_EXHAUSTED",
  /**
   * The request was still waiting in its group's queue when its maxQueueDuration elapsed (the canonical
   * Google code for a deadline that passed before the work was done; errorInfo reason QUEUE_DEADLINE_EXCEEDED).
   */
  DEADLINE_EXCEEDED: "DEADLINE_EXCEEDED",
} as const;

const ERROR_INFO_REASON = /^[A-Z][A-Z0-9_]+[A-Z0-9]$/;
const METADATA_KEY = /^[a-z][a-zA-Z0-9-_]+$/;
const MAX_MAP_ENTRIES = 64;

/** A string-to-string map whose keys match `keyPattern`, checked the same way by CEL and zod. */
function stringMap(keyPattern: RegExp, keyMaxLength: number, description: string) {
  return rule(boundedMap(z.record(z.string(), z.string().max(1024)), MAX_MAP_ENTRIES).meta({ description }), {
    cel: `self.all(k, size(k) <= ${keyMaxLength} && k.matches(${celString(keyPattern.source)}))`,
    message: `keys must match ${keyPattern.source} and have at most ${keyMaxLength} characters`,
    test: (map) => Object.keys(map).every((k) => k.length <= keyMaxLength && keyPattern.test(k)),
  });
}

export const ErrorInfo = z
  .object({
    reason: z
      .string()
      .max(63)
      .regex(ERROR_INFO_REASON)
      .meta({
        description:
          "Constant in UPPER_SNAKE_CASE naming the proximate cause of the error; unique within its domain, at most 63 characters.",
      })
      .optional(),
    domain: z
      .string()
      .max(253)
      .meta({
        description:
          "Logical grouping of the reason, usually the registered service name of the component that produced the error.",
      })
      .optional(),
    metadatas: stringMap(
      METADATA_KEY,
      64,
      "Additional structured details about the error. Keys start with a lowercase letter, contain letters, digits, '-' or '_', and have at most 64 characters.",
    ).optional(),
  })
  .meta({
    schemaId: "ErrorInfo",
    description: "Machine-readable cause of an error, with structured details.",
  });

export const QuotaExceededInfo = z
  .object({
    metricName: z.string().meta({ description: "Name of the quota metric that was exceeded." }).optional(),
    limitName: z.string().meta({ description: "Name of the quota limit that was exceeded." }).optional(),
    dimensions: boundedMap(z.record(z.string(), z.string()), MAX_MAP_ENTRIES)
      .meta({ description: "Dimensions of the exceeded limit, such as the zone or the group it applies to." })
      .optional(),
    limit: z.number().meta({ description: "The limit currently in effect." }).optional(),
    futureLimit: z
      .number()
      .meta({ description: "The limit being rolled out, when a change of the limit is in progress." })
      .optional(),
    rolloutStatus: z
      .enum(["ROLLOUT_STATUS_UNSPECIFIED", "IN_PROGRESS"])
      .meta({
        description: "Whether a change of the limit is being rolled out.",
        enumDescriptions: {
          ROLLOUT_STATUS_UNSPECIFIED: "No change of the limit is being rolled out.",
          IN_PROGRESS: "A change of the limit is being rolled out; futureLimit holds the new value.",
        },
      })
      .optional(),
  })
  .meta({
    schemaId: "QuotaExceededInfo",
    description: "Details of a quota that was exceeded; always present with the code QUOTA_EXCEEDED.",
  });

export const HelpLink = z
  .object({
    description: z.string().meta({ description: "What the link offers." }).optional(),
    url: z.string().max(2048).meta({ description: "URL of the link." }).optional(),
  })
  .meta({
    schemaId: "HelpLink",
    description: "A link to documentation or to a place where the error can be resolved.",
  });

export const Help = z
  .object({
    links: z
      .array(HelpLink)
      .max(16)
      .meta({ description: "Links that help to understand or resolve the error." })
      .optional(),
  })
  .meta({ schemaId: "Help", description: "Links to documentation about the error." });

export const LocalizedMessage = z
  .object({
    locale: z
      .string()
      .max(35)
      .meta({ description: "BCP 47 language tag of the message, for example en-US." })
      .optional(),
    message: z.string().meta({ description: "The error message in that locale." }).optional(),
  })
  .meta({ schemaId: "LocalizedMessage", description: "An error message translated into a locale." });

const DETAIL_KINDS = ["errorInfo", "quotaInfo", "help", "localizedMessage"] as const;

export const ErrorDetail = rule(
  z
    .object({
      errorInfo: ErrorInfo.optional(),
      quotaInfo: QuotaExceededInfo.optional(),
      help: Help.optional(),
      localizedMessage: LocalizedMessage.optional(),
    })
    .meta({
      description:
        "One detail of an error; holds exactly one of errorInfo, quotaInfo, help or localizedMessage.",
    }),
  {
    cel: `[${DETAIL_KINDS.map((k) => `has(self.${k})`).join(", ")}].filter(x, x).size() == 1`,
    message: `an error detail holds exactly one of ${DETAIL_KINDS.join(", ")}`,
    test: (d) => DETAIL_KINDS.filter((k) => d[k] !== undefined).length === 1,
  },
);

export const ErrorItem = rule(
  z
    .object({
      code: z
        .string()
        .min(1)
        .max(128)
        .meta({ description: "Identifier of the error type, for example QUOTA_EXCEEDED." }),
      location: z
        .string()
        .meta({ description: "The field of the request that caused the error, when one did." })
        .optional(),
      message: z.string().meta({ description: "Human-readable description of the error." }).optional(),
      errorDetails: z
        .array(ErrorDetail)
        .max(16)
        .meta({
          description: "Structured details of the error. QUOTA_EXCEEDED always carries a quotaInfo detail.",
        })
        .optional(),
    })
    .meta({ description: "One error." }),
  {
    cel: `self.code != '${ErrorCode.QUOTA_EXCEEDED}' || (has(self.errorDetails) && self.errorDetails.exists(d, has(d.quotaInfo)))`,
    message: "an error with code QUOTA_EXCEEDED carries a quotaInfo detail",
    fieldPath: ".errorDetails",
    test: (e) =>
      e.code !== ErrorCode.QUOTA_EXCEEDED || (e.errorDetails ?? []).some((d) => d.quotaInfo !== undefined),
  },
);

/** `{errors[]}`: the errors of a failed request, attempt or operation. */
export const Errors = z
  .object({
    errors: z.array(ErrorItem).min(1).max(32).meta({ description: "The errors that occurred." }),
  })
  // Inline, not a named schema: the compute API spells this object out at each use.
  .meta({ description: "The errors that occurred, as a list." });

export type ErrorInfo = z.infer<typeof ErrorInfo>;
export type QuotaExceededInfo = z.infer<typeof QuotaExceededInfo>;
export type HelpLink = z.infer<typeof HelpLink>;
export type Help = z.infer<typeof Help>;
export type LocalizedMessage = z.infer<typeof LocalizedMessage>;
export type ErrorDetail = z.infer<typeof ErrorDetail>;
export type ErrorItem = z.infer<typeof ErrorItem>;
export type Errors = z.infer<typeof Errors>;
