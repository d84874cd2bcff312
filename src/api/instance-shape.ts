// What one instance of a group brings (its node's allocatable, labels and taints) and which
// ProvisioningRequests may draw on the group. Both are InstanceGroupManager spec fields: the shape lets
// the provisioner size a pod set's demand in instances, the policy is the group owner's consent (none
// until given, as Gateway API's allowedListeners), since the provisioner creates ResizeRequests with its
// own `use` on every group and the admission policy never sees who asked.
import { PROVISIONING_CLASS } from "./provisioning-request.js";
import { z } from "zod";
import { kubeDuration } from "./duration.js";
import { boundedMap, rule } from "./meta.js";
import { QUANTITY_PATTERN } from "./quantity.js";

export const DEFAULT_BOOKING_WINDOW = "10m";
/** GKE's default for a queued-provisioning request without maxRunDurationSeconds: 7 days. */
export const DEFAULT_MAX_RUN_DURATION = "168h";

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
        .enum(["None", "Same", "All", "Selector"])
        .meta({
          description:
            "Which namespaces' ProvisioningRequests may draw on this group: its owner's consent, needed because the provisioner creates their ResizeRequests with its own use permission.",
          enumDescriptions: {
            None: "None (the default): no ProvisioningRequest, not even from the group's namespace.",
            Same: "Only ProvisioningRequests in the group's namespace.",
            All: "ProvisioningRequests in any namespace.",
            Selector:
              "ProvisioningRequests in namespaces whose labels match namespaceSelector; to name them, match kubernetes.io/metadata.name with operator In.",
          },
        })
        .default("None"),
      namespaceSelector: LabelSelector.meta({
        description: "With namespaces: Selector, the namespaces allowed.",
      }).optional(),
      bookingWindow: kubeDuration({ min: "1s", max: "168h" })
        .meta({
          description:
            "How long provisioned capacity stays booked for the request's pods: if no pod consumes it by then, the ProvisioningRequest gets BookingExpired=True (Kueue then retries it if the workload was not admitted). A request's bookingWindow parameter wins.",
        })
        .default(DEFAULT_BOOKING_WINDOW),
      defaultMaxRunDuration: kubeDuration({ min: "0s", max: "87600h" })
        .meta({
          description:
            "The run duration of a request without the maxRunDurationSeconds parameter: its capacity is released (CapacityRevoked=True) that long after it was provisioned. 168h (7 days) by default, as GKE; 0s keeps the capacity until the request is deleted.",
        })
        .default(DEFAULT_MAX_RUN_DURATION),
      strictParameters: z
        .boolean()
        .meta({
          description:
            "A request parameter the provisioner does not know fails the request (Failed=True, reason InvalidParameters). By default (false) it is ignored, as GKE and cluster-autoscaler do, and named in a Warning Event and in the Accepted condition's message.",
        })
        .default(false),
    })
    .meta({
      description: `Whether and how the group serves ProvisioningRequests (autoscaling.x-k8s.io/v1, class ${PROVISIONING_CLASS}), for example from Kueue. A group without it (or with namespaces: None) serves none.`,
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
