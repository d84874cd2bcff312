// The list responses of the REST API, named and shaped as in the compute API: one page of items plus
// the token of the next page. The regional resize-request list also has `etag` and `unreachables`.
import { z } from "zod";
import { REST_KIND } from "./names.js";
import { Operation, OperationWarning } from "./operation.js";
import { InstanceGroupManagerResizeRequest } from "./resize-request-rest.js";

function listFields(kind: string, item: z.ZodType, what: string) {
  return {
    kind: z.literal(kind).meta({ outputOnly: true, description: `Type of the resource: always ${kind}.` }),
    id: z.string().meta({ outputOnly: true, description: "Unique identifier of the listing." }).optional(),
    items: z
      .array(item)
      .meta({ description: `The ${what} of this page.` })
      .optional(),
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
  };
}

export const InstanceGroupManagerResizeRequestsListResponse = z
  .object(listFields(REST_KIND.resizeRequestList, InstanceGroupManagerResizeRequest, "resize requests"))
  .meta({
    schemaId: "InstanceGroupManagerResizeRequestsListResponse",
    description: "A page of the resize requests of a zonal group.",
  });
export type InstanceGroupManagerResizeRequestsListResponse = z.infer<
  typeof InstanceGroupManagerResizeRequestsListResponse
>;

export const RegionInstanceGroupManagerResizeRequestsListResponse = z
  .object({
    ...listFields(REST_KIND.regionResizeRequestList, InstanceGroupManagerResizeRequest, "resize requests"),
    etag: z.string().meta({ outputOnly: true, description: "Not set by this server." }).optional(),
    unreachables: z
      .array(z.string())
      .meta({
        outputOnly: true,
        description: "Locations that could not be reached; never set here (one cluster answers for all).",
      })
      .optional(),
  })
  .meta({
    schemaId: "RegionInstanceGroupManagerResizeRequestsListResponse",
    description: "A page of the resize requests of a regional group.",
  });
export type RegionInstanceGroupManagerResizeRequestsListResponse = z.infer<
  typeof RegionInstanceGroupManagerResizeRequestsListResponse
>;

export const OperationList = z
  .object(listFields(REST_KIND.operationList, Operation, "operations"))
  .meta({ schemaId: "OperationList", description: "A page of operations." });
export type OperationList = z.infer<typeof OperationList>;
