// ResizeRequest as the compute API's REST resource `InstanceGroupManagerResizeRequest` (docs/design.md
// §3.2, §6): what get and list return and what insert accepts, built from the fields the Kubernetes
// object shares (resize-request-fields.ts).
import { z } from "zod";
import { rule } from "./meta.js";
import { EXACTLY_ONE_SIZE, instanceList, instanceName, sharedField } from "./resize-request-fields.js";

/**
 * PerInstanceConfig as the compute API has it. `fingerprint` and `status` are output-only there and
 * ignored on input; `preservedState` (stateful disks, IPs, metadata) has no meaning for a Kubernetes
 * workload, so the strict object refuses it with an error naming the field.
 */
export const PerInstanceConfig = z
  .object({
    name: instanceName,
    fingerprint: z
      .string()
      .meta({
        format: "byte",
        description: "Fingerprint of the configuration. Ignored on input; never set by this server.",
      })
      .optional(),
    status: z
      .enum(["APPLYING", "DELETING", "EFFECTIVE", "NONE", "UNAPPLIED", "UNAPPLIED_DELETION"])
      .meta({
        outputOnly: true,
        description: "Status of the per-instance configuration. Ignored on input; never set by this server.",
        enumDescriptions: {
          APPLYING: "Being applied.",
          DELETING: "Being deleted.",
          EFFECTIVE: "Effective on the instance.",
          NONE: "No per-instance configuration exists.",
          UNAPPLIED: "Set but not applied yet.",
          UNAPPLIED_DELETION: "Deleted but the deletion is not applied yet.",
        },
      })
      .optional(),
  })
  .strict()
  .meta({
    schemaId: "PerInstanceConfig",
    description:
      "One instance a resize request creates. Only name has a meaning here; preservedState is refused.",
  });
export type PerInstanceConfig = z.infer<typeof PerInstanceConfig>;

const instances = instanceList(PerInstanceConfig);

const restInputFields = {
  name: sharedField.name,
  description: sharedField.description.optional(),
  resizeBy: sharedField.resizeBy.optional(),
  instances: instances.optional(),
  requestedRunDuration: sharedField.requestedRunDuration.optional(),
};

/** The body of `resizeRequests.insert`: the input fields; output-only fields are dropped. */
export const ResizeRequestInsert = rule(
  z.object(restInputFields).meta({ description: "A resize request as sent to insert." }),
  EXACTLY_ONE_SIZE,
);
export type ResizeRequestInsert = z.infer<typeof ResizeRequestInsert>;

export const InstanceGroupManagerResizeRequestStatus = z
  .object({ error: sharedField.error.optional(), lastAttempt: sharedField.lastAttempt.optional() })
  .meta({
    schemaId: "InstanceGroupManagerResizeRequestStatus",
    outputOnly: true,
    description: "Status of the request.",
  });

/** The REST representation (`compute#instanceGroupManagerResizeRequest`), as get and list return it. */
export const InstanceGroupManagerResizeRequest = rule(
  z
    .object({
      kind: sharedField.kind.optional(),
      id: sharedField.id.optional(),
      creationTimestamp: sharedField.creationTimestamp.optional(),
      name: restInputFields.name,
      description: restInputFields.description,
      zone: sharedField.zone.optional(),
      region: sharedField.region.optional(),
      resizeBy: restInputFields.resizeBy,
      instances: restInputFields.instances,
      requestedRunDuration: restInputFields.requestedRunDuration,
      state: sharedField.state.optional(),
      status: InstanceGroupManagerResizeRequestStatus.optional(),
      selfLink: sharedField.selfLink.optional(),
      selfLinkWithId: sharedField.selfLinkWithId.optional(),
    })
    .meta({
      schemaId: "InstanceGroupManagerResizeRequest",
      description:
        "A request to grow a managed instance group by a number of instances at once, optionally for a bounded run duration.",
    }),
  EXACTLY_ONE_SIZE,
);
export type InstanceGroupManagerResizeRequest = z.infer<typeof InstanceGroupManagerResizeRequest>;
