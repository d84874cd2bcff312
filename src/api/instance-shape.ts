// What one instance of a group brings (its node's allocatable, labels and taints) and which
// ProvisioningRequests may draw on the group. Both are InstanceGroupManager spec fields: the shape lets
// the provisioner size a pod set's demand in instances, the policy is the group owner's consent for
// other namespaces, as Gateway API's allowedRoutes is a Gateway owner's.
import { PROVISIONING_CLASS } from "./provisioning-request.js";
import { z } from "zod";
import { kubeDuration } from "./duration.js";
import { boundedMap, rule } from "./meta.js";
import { QUANTITY_PATTERN } from "./quantity.js";

export const DEFAULT_BOOKING_WINDOW = "10m";

/** Label keys and resource names: an optional DNS prefix, then a name (Kubernetes qualified names). */
export const QUALIFIED_NAME =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
export const QUALIFIED_NAME_MAX = 316;
export const QualifiedName = z.string().min(1).max(QUALIFIED_NAME_MAX).regex(QUALIFIED_NAME, {
  message: "must be a qualified name such as cpu, nvidia.com/gpu or topology.kubernetes.io/zone",
});
export const LabelValue = z
  .string()
  .max(63)
  .regex(/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/, { message: "must be a label value" });
const Quantity = z.string().max(64).regex(new RegExp(QUANTITY_PATTERN), {
  message: "must be a quantity such as 32, 500m, 256Gi (quote it in YAML)",
});

export const Taint = z
  .object({
    key: QualifiedName.meta({ description: "Taint key." }),
    value: LabelValue.meta({ description: "Taint value." }).optional(),
    effect: z.enum(["NoSchedule", "PreferNoSchedule", "NoExecute"]).meta({
      description: "What the taint does to pods that do not tolerate it.",
      enumDescriptions: {
        NoSchedule: "Pods that do not tolerate it are not scheduled on the instance.",
        PreferNoSchedule: "The scheduler avoids the instance for pods that do not tolerate it.",
        NoExecute: "Pods that do not tolerate it are neither scheduled nor kept on the instance.",
      },
    }),
  })
  .meta({ description: "A taint the instance's node carries (core/v1 Taint)." });

export const InstanceShape = z
  .object({
    allocatable: boundedMap(z.record(QualifiedName, Quantity), 32).meta({
      description:
        'Resources one instance offers to pods (its node\'s status.allocatable), for example {cpu: "32", memory: 256Gi, nvidia.com/gpu: "8", pods: "110"}. A resource a pod requests that is not listed here does not fit. Quantities are strings: quote plain numbers in YAML.',
    }),
    labels: boundedMap(z.record(QualifiedName, LabelValue), 64)
      .meta({
        description:
          "Labels the instance's node carries; a pod template's nodeSelector must match them for the group to serve it.",
      })
      .optional(),
    taints: z
      .array(Taint)
      .max(32)
      .meta({
        description:
          "Taints the instance's node carries; a pod must tolerate each NoSchedule and NoExecute one.",
      })
      .optional(),
  })
  .meta({
    description:
      "What one instance of the group brings, so that ProvisioningRequests can be sized in instances. A group without it serves no ProvisioningRequest.",
  });

export const LabelSelectorRequirement = z
  .object({
    key: QualifiedName.meta({ description: "The label key the requirement applies to." }),
    operator: z.enum(["In", "NotIn", "Exists", "DoesNotExist"]).meta({
      description: "How the key relates to the values.",
      enumDescriptions: {
        In: "The label's value is one of values.",
        NotIn: "The label is absent or its value is none of values.",
        Exists: "The label is present, whatever its value.",
        DoesNotExist: "The label is absent.",
      },
    }),
    values: z
      .array(LabelValue)
      .max(64)
      .meta({ description: "Values for In and NotIn; empty otherwise." })
      .optional(),
  })
  .meta({ description: "A label selector requirement (metav1.LabelSelectorRequirement)." });

export const LabelSelector = z
  .object({
    matchLabels: boundedMap(z.record(QualifiedName, LabelValue), 64)
      .meta({ description: "Labels that must all be present with these values." })
      .optional(),
    matchExpressions: z
      .array(LabelSelectorRequirement)
      .max(32)
      .meta({ description: "Requirements that must all hold." })
      .optional(),
  })
  .meta({ description: "A label selector (metav1.LabelSelector); an empty one selects everything." });

export const ProvisioningRequestPolicy = rule(
  z
    .object({
      namespaces: z
        .enum(["Same", "All", "Selector"])
        .meta({
          description:
            "Which namespaces' ProvisioningRequests may draw on this group: Same (only the group's own), All, or Selector (namespaces whose labels match namespaceSelector).",
          enumDescriptions: {
            Same: "Only ProvisioningRequests in the group's namespace.",
            All: "ProvisioningRequests in any namespace.",
            Selector: "ProvisioningRequests in namespaces whose labels match namespaceSelector.",
          },
        })
        .default("Same"),
      namespaceSelector: LabelSelector.meta({
        description: "With namespaces: Selector, the namespaces allowed.",
      }).optional(),
      bookingWindow: kubeDuration({ min: "1s", max: "168h" })
        .meta({
          description:
            "How long provisioned capacity stays booked for the request's pods: if no pod consumes it by then, the ProvisioningRequest gets BookingExpired=True (Kueue then retries it if the workload was not admitted). A request's bookingWindow parameter wins.",
        })
        .default(DEFAULT_BOOKING_WINDOW),
    })
    .meta({
      description: `How the group serves ProvisioningRequests (autoscaling.x-k8s.io/v1, class ${PROVISIONING_CLASS}), for example from Kueue.`,
    }),
  {
    cel: "self.namespaces != 'Selector' || has(self.namespaceSelector)",
    message: "namespaceSelector is required when namespaces is Selector",
    fieldPath: ".namespaceSelector",
    test: (p) => p.namespaces !== "Selector" || p.namespaceSelector !== undefined,
  },
);

export type Taint = z.infer<typeof Taint>;
export type InstanceShape = z.infer<typeof InstanceShape>;
export type LabelSelector = z.infer<typeof LabelSelector>;
export type ProvisioningRequestPolicy = z.infer<typeof ProvisioningRequestPolicy>;
