// The body of every list method: one page of the items, filtered and ordered as the call's list
// parameters (filter, orderBy, maxResults, pageToken) say, in the compute API's list shape.
import { page } from "./query.js";

/** The list parameters every list method declares (routes.ts); `maxResults` has a default. */
export interface ListParams {
  readonly filter?: string;
  readonly orderBy?: string;
  readonly pageToken?: string;
  readonly maxResults: number;
}

export interface ListIdentity {
  readonly kind: string;
  readonly id: string;
  /** URL of the collection; page tokens are bound to it. */
  readonly selfLink: string;
}

export function listAnswer<T>(params: ListParams, all: readonly T[], list: ListIdentity) {
  const { filter, orderBy, pageToken } = params;
  const result = page(all, {
    scope: list.selfLink,
    maxResults: params.maxResults,
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
