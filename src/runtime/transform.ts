// Transforms applied to raw API objects before an informer decodes and caches them (controller-runtime's
// cache `DefaultTransform` / `TransformStripManagedFields`): a cache holds every object of a collection
// for the process's lifetime, so what no reader needs should not reach it.
import type { KubeObject } from "./object.js";

/** Rewrites a raw object on its way into a cache; must not modify its argument. */
export type Transform = (raw: KubeObject) => KubeObject;

/** Written by `kubectl apply` (client-side): a JSON copy of the whole applied object. */
export const LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";

/**
 * Drops `metadata.managedFields` (server-side apply's bookkeeping: one entry per field manager, usually
 * larger than the object itself) and the `kubectl apply` annotation. Safe for a cache whose objects are
 * only read or written back through the status subresource or patches: an update without managedFields
 * keeps the server's, and nothing in the operator reads either field. An object without them is
 * returned as it is.
 */
export const stripUnreadMetadata: Transform = (raw) => {
  const metadata = raw.metadata as Record<string, unknown> | undefined;
  if (!metadata) return raw;
  const annotations = metadata.annotations as Record<string, string> | undefined;
  const hasLastApplied = annotations !== undefined && LAST_APPLIED_ANNOTATION in annotations;
  if (metadata.managedFields === undefined && !hasLastApplied) return raw;
  const lean: Record<string, unknown> = { ...metadata };
  delete lean.managedFields;
  if (hasLastApplied) {
    const kept = Object.fromEntries(
      Object.entries(annotations).filter(([key]) => key !== LAST_APPLIED_ANNOTATION),
    );
    if (Object.keys(kept).length > 0) lean.annotations = kept;
    else delete lean.annotations;
  }
  return { ...raw, metadata: lean };
};
