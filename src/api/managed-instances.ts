// The answer of `instanceGroupManagers.listManagedInstances` and its regional twin, shaped as the
// compute API's ManagedInstance: one row per instance a resize request of the group holds (its
// `status.instances`). The compute API has no field for "the resize request holding this instance";
// the request's name travels in `version.name` (the compute API's "name of the version" that created
// the instance), see docs/rest.md.
import { z } from "zod";

export const INSTANCE_STATUSES = ["PROVISIONING", "RUNNING", "STOPPING"] as const;
export const CURRENT_ACTIONS = ["CREATING", "NONE", "DELETING"] as const;

export const ManagedInstanceVersion = z
  .object({
    instanceTemplate: z
      .string()
      .meta({ outputOnly: true, description: "Not set: a Kubernetes workload has no instance template." })
      .optional(),
    name: z
      .string()
      .meta({ outputOnly: true, description: "Name of the resize request that holds this instance." })
      .optional(),
  })
  .meta({ schemaId: "ManagedInstanceVersion", description: "What created the instance." });

export const ManagedInstance = z
  .object({
    instance: z
      .string()
      .meta({ outputOnly: true, description: "URL of the instance (a Node, Pod or Machine of the group)." })
      .optional(),
    id: z
      .string()
      .meta({
        outputOnly: true,
        format: "uint64",
        description: "Not set: instances are named, not numbered.",
      })
      .optional(),
    name: z.string().meta({ outputOnly: true, description: "Name of the instance object." }).optional(),
    instanceStatus: z
      .enum(INSTANCE_STATUSES)
      .meta({
        outputOnly: true,
        description: "Derived from the holding request's state (docs/rest.md).",
        enumDescriptions: {
          PROVISIONING: "The holding request is still provisioning (ACCEPTED).",
          RUNNING: "The holding request SUCCEEDED.",
          STOPPING: "The holding request ended and its instances are being released.",
        },
      })
      .optional(),
    currentAction: z
      .enum(CURRENT_ACTIONS)
      .meta({
        outputOnly: true,
        description: "What the group does with the instance, derived from the holding request's state.",
        enumDescriptions: {
          CREATING: "The holding request is provisioning.",
          NONE: "The instance is running; nothing is scheduled for it.",
          DELETING: "The holding request ended; the instance is being released.",
        },
      })
      .optional(),
    version: ManagedInstanceVersion.meta({ outputOnly: true }).optional(),
  })
  .meta({ schemaId: "ManagedInstance", description: "An instance of a managed instance group." });
export type ManagedInstance = z.infer<typeof ManagedInstance>;

const listFields = () => ({
  managedInstances: z
    .array(ManagedInstance)
    .meta({ outputOnly: true, description: "The instances of this page." })
    .optional(),
  nextPageToken: z
    .string()
    .meta({
      outputOnly: true,
      description: "Present when more results exist: pass it as pageToken to get the next page.",
    })
    .optional(),
});

export const InstanceGroupManagersListManagedInstancesResponse = z.object(listFields()).meta({
  schemaId: "InstanceGroupManagersListManagedInstancesResponse",
  description: "A page of the instances of a zonal group.",
});
export const RegionInstanceGroupManagersListInstancesResponse = z.object(listFields()).meta({
  schemaId: "RegionInstanceGroupManagersListInstancesResponse",
  description: "A page of the instances of a regional group.",
});
