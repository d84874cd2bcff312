// The fields of a resize request that its two representations share — the Kubernetes object
// (resize-request.ts) and the REST resource (resize-request-rest.ts) — defined once so the CRD, the
// validators and the discovery document describe them in the same words.
import { z } from "zod";
import { Errors } from "./errors.js";
import { RESIZE_REQUEST_STATES } from "./lifecycle.js";
import type { RuleSpec } from "./meta.js";
import { REST_KIND } from "./names.js";
import { Rfc1035Label, Timestamp, Uint64String } from "./primitives.js";
import { Duration } from "./duration.js";

export const instanceName = Rfc1035Label.meta({
  description: "Name of the instance (an RFC 1035 label), unique within the request.",
});

/**
 * A request's list of instances (of `item`s, named by `instanceName`), keyed by name: the API server
 * rejects duplicates (list-map), zod too.
 */
export function instanceList<S extends z.ZodObject<{ name: typeof instanceName }>>(item: S) {
  return z
    .array(item)
    .min(1)
    .max(1000)
    .refine((items) => new Set(items.map((i) => i.name)).size === items.length, {
      message: "instance names must be unique",
    })
    .meta({
      listType: "map",
      listMapKeys: ["name"],
      description:
        'The instances the request creates, one entry per instance, named (unique RFC 1035 labels); the request creates as many instances as it names. Names are honoured only where the target gives its instances names known in advance: a StatefulSet\'s next pods, <statefulset>-<ordinal>; anywhere else the request is refused (docs/lifecycle.md "Named instances"). Exactly one of resizeBy and instances is set.',
    });
}

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

/** The shared fields, each required; a representation makes optional what it does not always carry. */
export const sharedField = {
  name: Rfc1035Label.meta({
    description:
      "Name of the resize request: an RFC 1035 label of 1-63 characters, unique within the group's namespace.",
  }),
  description: z.string().max(2048).meta({ description: "Free-form description of the request." }),
  resizeBy: z.int32().min(1).meta({
    description:
      "Number of instances the request creates: the target's replicas grow by this number, all at once. Exactly one of resizeBy and instances is set.",
  }),
  requestedRunDuration: Duration.meta({
    description:
      "How long the instances created by the request run. When it has elapsed after the request succeeded, the instances are removed again. Without it they stay until removed by other means.",
  }),
  kind: z.literal(REST_KIND.resizeRequest).meta({
    outputOnly: true,
    description: `Type of the resource: always ${REST_KIND.resizeRequest}.`,
  }),
  id: Uint64String.meta({
    outputOnly: true,
    description: "Unique identifier of the request, defined by the server (uint64 as a decimal string).",
  }),
  creationTimestamp: Timestamp.meta({
    outputOnly: true,
    description: "When the request was created (RFC 3339).",
  }),
  zone: z
    .string()
    .meta({ outputOnly: true, description: "URL of the zone of the request's group, for zonal requests." }),
  region: z.string().meta({
    outputOnly: true,
    description: "URL of the region of the request's group, for regional requests.",
  }),
  selfLink: z.string().meta({ outputOnly: true, description: "URL of the request, defined by the server." }),
  selfLinkWithId: z.string().meta({
    outputOnly: true,
    description: "URL of the request using its numeric id instead of its name, defined by the server.",
  }),
  error: Errors.meta({
    outputOnly: true,
    description:
      "Fatal errors from the queueing or provisioning phase that moved the request to FAILED. Final: never removed, since a failed request does not retry.",
  }),
  state: ResizeRequestState,
  lastAttempt,
};

/** A request asks for a number of instances or names them, never both (spec and REST insert alike). */
export const EXACTLY_ONE_SIZE: RuleSpec<{
  readonly resizeBy?: number;
  readonly instances?: readonly unknown[];
}> = {
  cel: "has(self.resizeBy) != has(self.instances)",
  message: "exactly one of resizeBy or instances must be set",
  test: (r) => (r.resizeBy === undefined) !== (r.instances === undefined),
};
