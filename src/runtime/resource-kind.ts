// What the client needs to know about a kind to address it, and the one place that turns that into
// API paths. Every path segment a caller supplies (namespace, name) is URL-encoded here.
import type { z } from "zod";
import { groupVersionPath } from "../api/target-ref.js";

/** Where a kind's objects live: its group version, its resource (plural) and whether it is namespaced. */
export interface ResourceLocation {
  /** "v1" for the core group, "group/version" otherwise (e.g. "apps/v1"). */
  readonly apiVersion: string;
  /** The resource (plural) name, e.g. "deployments". */
  readonly resource: string;
  readonly namespaced: boolean;
  /** Set when every call addresses this subresource of the object (e.g. "scale"). */
  readonly subresource?: string;
}

/** A kind the client can read and write: its location and the schema its replies are decoded with. */
export interface ResourceKind<T> extends ResourceLocation {
  readonly kind: string;
  readonly schema: z.ZodType<T>;
}

/** The key of one object (controller-runtime's client.ObjectKey); namespace is ignored for cluster kinds. */
export interface ObjectKey {
  readonly namespace?: string;
  readonly name: string;
}

/**
 * The path of a collection (no name), of one object, or of one of its subresources. A namespaced
 * resource without a namespace addresses all namespaces (lists and watches only).
 */
export function resourcePath(
  where: ResourceLocation,
  at: { readonly namespace?: string | undefined; readonly name?: string | undefined } = {},
  subresource: string | undefined = where.subresource,
): string {
  const scope =
    where.namespaced && at.namespace !== undefined ? `/namespaces/${encodeURIComponent(at.namespace)}` : "";
  const collection = `${groupVersionPath(where.apiVersion)}${scope}/${encodeURIComponent(where.resource)}`;
  if (at.name === undefined) return collection;
  const item = `${collection}/${encodeURIComponent(at.name)}`;
  return subresource === undefined ? item : `${item}/${encodeURIComponent(subresource)}`;
}
