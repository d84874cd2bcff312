// Where a kind keeps what its /scale subresource shows (pure): the API server builds a Scale from fields
// of the object itself, so an object from an informer's cache gives the same replicas, status replicas
// and selector as a GET of /scale, without the call. The built-in kinds and the well-known custom ones
// are known to their kind modules (apps.ts, cluster-api.ts, karpenter.ts); for any other custom
// resource the paths come from its CRD (spec.versions[].subresources.scale), read by informers.ts.
import { z } from "zod";
import type { Scale } from "../runtime/builtin-kinds.js";
import { targetKindOf } from "./index.js";
import type { ScalePaths } from "./kind.js";

/** Where a known kind keeps its /scale fields: its kind module says (targets/kind.ts, scalePaths). */
export function knownScalePaths(apiVersion: string, kind: string): ScalePaths | undefined {
  return targetKindOf({ apiVersion, kind }).scalePaths.get(kind);
}

const CrdScale = z.looseObject({
  spec: z.looseObject({
    versions: z.array(
      z.looseObject({
        name: z.string(),
        subresources: z
          .looseObject({
            scale: z
              .looseObject({
                specReplicasPath: z.string(),
                statusReplicasPath: z.string(),
                labelSelectorPath: z.string().optional(),
              })
              .optional(),
          })
          .optional(),
      }),
    ),
  }),
});

/** `.spec.replicas` → `spec.replicas`; undefined for a JSONPath beyond plain dotted fields. */
function dotted(jsonPath: string): string | undefined {
  return /^(\.[A-Za-z0-9_-]+)+$/.test(jsonPath) ? jsonPath.slice(1) : undefined;
}

/** The paths a CRD declares for `version`'s /scale; undefined when it has none we can follow. */
export function crdScalePaths(crd: unknown, version: string): ScalePaths | undefined {
  const parsed = CrdScale.safeParse(crd);
  const scale = parsed.success
    ? parsed.data.spec.versions.find((v) => v.name === version)?.subresources?.scale
    : undefined;
  if (!scale) return undefined;
  const specReplicas = dotted(scale.specReplicasPath);
  const statusReplicas = dotted(scale.statusReplicasPath);
  const selector = scale.labelSelectorPath === undefined ? undefined : dotted(scale.labelSelectorPath);
  if (specReplicas === undefined || statusReplicas === undefined) return undefined;
  if (scale.labelSelectorPath !== undefined && selector === undefined) return undefined;
  return { specReplicas, statusReplicas, ...(selector !== undefined && { selector }) };
}

/** The value at a dotted path such as `status.readyReplicas`, or undefined. */
export function valueAt(obj: unknown, path: string): unknown {
  let value: unknown = obj;
  for (const part of path.split(".")) {
    value =
      typeof value === "object" && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  }
  return value;
}

/** A count at a dotted path; anything but a finite number counts as 0. */
export function countAt(obj: unknown, path: string): number {
  const value = valueAt(obj, path);
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

interface Requirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

/**
 * A metav1.LabelSelector as the API server writes it into a Scale (labels.Selector's String(): one
 * requirement per key, sorted by key, `k=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`).
 */
export function labelSelectorString(selector: unknown): string | undefined {
  if (typeof selector !== "object" || selector === null) return undefined;
  const s = selector as { matchLabels?: Record<string, string>; matchExpressions?: Requirement[] };
  const terms: { key: string; text: string }[] = Object.entries(s.matchLabels ?? {}).map(([key, v]) => ({
    key,
    text: `${key}=${v}`,
  }));
  for (const { key, operator, values = [] } of s.matchExpressions ?? []) {
    const list = `(${[...values].sort().join(",")})`;
    const text = {
      In: `${key} in ${list}`,
      NotIn: `${key} notin ${list}`,
      Exists: key,
      DoesNotExist: `!${key}`,
    }[operator];
    if (text === undefined) return undefined;
    terms.push({ key, text });
  }
  return terms
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((t) => t.text)
    .join(",");
}

interface ObjectMetaLike {
  readonly name?: string;
  readonly namespace?: string;
  readonly resourceVersion?: string;
}

/**
 * The Scale the API server would serve for `object` (its resourceVersion is the object's: a scale
 * subresource has none of its own), fit to be written back with a new spec.replicas.
 */
export function scaleOfObject(
  object: { readonly metadata?: ObjectMetaLike; readonly [field: string]: unknown },
  paths: ScalePaths,
): Scale {
  const { name = "", namespace, resourceVersion } = object.metadata ?? {};
  const selector =
    paths.selector !== undefined
      ? valueAt(object, paths.selector)
      : paths.labelSelector !== undefined
        ? labelSelectorString(valueAt(object, paths.labelSelector))
        : undefined;
  return {
    apiVersion: "autoscaling/v1",
    kind: "Scale",
    metadata: {
      name,
      ...(namespace !== undefined && { namespace }),
      ...(resourceVersion !== undefined && { resourceVersion }),
    },
    spec: { replicas: countAt(object, paths.specReplicas) },
    status: {
      replicas: countAt(object, paths.statusReplicas),
      ...(typeof selector === "string" && { selector }),
    },
  };
}
