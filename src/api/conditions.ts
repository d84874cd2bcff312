// metav1.Condition, with the validation Kubernetes' own types carry, and the condition types each
// kind reports. `kubectl wait --for=condition=Succeeded rr/NAME` relies on these names.
import { z } from "zod";
import { Generation, Timestamp } from "./primitives.js";

const CONDITION_TYPE =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$/;
const CONDITION_REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

export const Condition = z
  .object({
    type: z
      .string()
      .min(1)
      .max(316)
      .regex(CONDITION_TYPE)
      .meta({ description: "Type of the condition, in CamelCase, for example Succeeded." }),
    status: z.enum(["True", "False", "Unknown"]).meta({
      description: "Whether the condition holds.",
      enumDescriptions: {
        True: "The condition holds.",
        False: "The condition does not hold.",
        Unknown: "The controller cannot tell whether the condition holds.",
      },
    }),
    observedGeneration: Generation.meta({
      description: "The metadata.generation the condition was computed from.",
    }).optional(),
    lastTransitionTime: Timestamp.meta({ description: "When the status of the condition last changed." }),
    reason: z
      .string()
      .min(1)
      .max(1024)
      .regex(CONDITION_REASON)
      .meta({ description: "Machine-readable CamelCase reason for the last transition." }),
    message: z
      .string()
      .max(32768)
      .meta({ description: "Human-readable details of the last transition; may be empty." }),
  })
  .meta({ schemaId: "Condition", description: "An observation of one aspect of the object's state." });
export type Condition = z.infer<typeof Condition>;

/** `status.conditions`: one entry per type, merged by type under server-side apply. */
export const Conditions = z
  .array(Condition)
  .max(16)
  .meta({ listType: "map", listMapKeys: ["type"] });

/** Condition types of a ResizeRequest. */
export const ResizeRequestCondition = {
  /** True once the request passed admission against its group (state ACCEPTED or later). */
  Accepted: "Accepted",
  /** True while the request waits in its group's queue for capacity. */
  Queued: "Queued",
  /** True while a provisioning attempt is in progress. */
  Provisioning: "Provisioning",
  /** True once all instances of the request were ready (state SUCCEEDED). */
  Succeeded: "Succeeded",
  /** True once the requested run duration elapsed and the request's instances were removed. */
  Released: "Released",
  /**
   * True when a StatefulSet release of an earlier request took this request's pods (it removes its
   * highest ordinals) and the earlier request's pods took their place; the message names both.
   */
  InstancesReplaced: "InstancesReplaced",
  /** True when the request failed fatally (state FAILED). */
  Failed: "Failed",
  /** True when the request was cancelled (state CANCELLED). */
  Cancelled: "Cancelled",
} as const;

/** Condition types of an InstanceGroupManager. */
export const InstanceGroupManagerCondition = {
  /** True when the target workload exists, can be scaled through /scale, and its ready instances can be counted. */
  Ready: "Ready",
  /**
   * For a group counting its instances from Nodes: True while a Ready Node its selector selects does not
   * count (reason UndeclaredTaint, Cordoned, NotRegistered, SystemTaint or BeingDeleted), with the Nodes
   * and why in its message; False (NoneHeldBack) otherwise.
   */
  InstancesHeldBack: "InstancesHeldBack",
  /**
   * Whether a release removes exactly a request's own instances: True (OwnInstances) for a Karpenter
   * NodePool, a Deployment or a ReplicaSet; False (CountOnly) where the target's controller chooses.
   */
  InstanceIdentity: "InstanceIdentity",
} as const;
