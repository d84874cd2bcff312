// The list responses of the REST API (`compute#instanceGroupManagerResizeRequestList`,
// `compute#operationList`): one page of items plus the token of the next page.
import { z } from "zod";
import { REST_KIND } from "./names.js";
import { Operation, OperationWarning } from "./operation.js";
import { InstanceGroupManagerResizeRequest } from "./resize-request.js";

function listOf(kind: string, item: z.ZodType, schemaId: string, what: string) {
  return z
    .object({
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
    })
    .meta({ schemaId, description: `A page of ${what}.` });
}

export const InstanceGroupManagerResizeRequestList = listOf(
  REST_KIND.resizeRequestList,
  InstanceGroupManagerResizeRequest,
  "InstanceGroupManagerResizeRequestList",
  "resize requests",
);
export type InstanceGroupManagerResizeRequestList = z.infer<typeof InstanceGroupManagerResizeRequestList>;

export const OperationList = listOf(REST_KIND.operationList, Operation, "OperationList", "operations");
export type OperationList = z.infer<typeof OperationList>;
