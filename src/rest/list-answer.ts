// The body of every list method: one page of the items, filtered and ordered as the call's list
// parameters (filter, orderBy, maxResults, pageToken) say, in the compute API's list shape.
import { page } from "./query.js";
import type { Params } from "./route.js";

export interface ListIdentity {
  readonly kind: string;
  readonly id: string;
  /** URL of the collection; page tokens are bound to it. */
  readonly selfLink: string;
}

export function listAnswer<T>(params: Params, all: readonly T[], list: ListIdentity) {
  const filter = params.optionalString("filter");
  const orderBy = params.optionalString("orderBy");
  const pageToken = params.optionalString("pageToken");
  const result = page(all, {
    scope: list.selfLink,
    maxResults: params.integer("maxResults"),
    ...(filter !== undefined && { filter }),
    ...(orderBy !== undefined && { orderBy }),
    ...(pageToken !== undefined && { pageToken }),
  });
  return {
    kind: list.kind,
    id: list.id,
    items: result.items,
    ...(result.nextPageToken !== undefined && { nextPageToken: result.nextPageToken }),
    selfLink: list.selfLink,
  };
}
