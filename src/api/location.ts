// Where a group lives, as the compute API addresses it: a zone (`zones/{zone}`) or a region
// (`regions/{region}`). Zonal and regional groups are served under different REST collections
// (`instanceGroupManagerResizeRequests` + `zoneOperations`, `regionInstanceGroupManagerResizeRequests`
// + `regionOperations`), and their requests and operations carry `zone` or `region` accordingly.

export type LocationScope = "zones" | "regions";

export interface Location {
  readonly scope: LocationScope;
  readonly name: string;
}

/** The location of a group spec: exactly one of zone and region is set (the CRD enforces it). */
export function groupLocation(spec: { readonly zone?: string; readonly region?: string }): Location {
  if (spec.zone !== undefined) return { scope: "zones", name: spec.zone };
  if (spec.region !== undefined) return { scope: "regions", name: spec.region };
  throw new Error("a group has neither zone nor region");
}

export function sameLocation(a: Location, b: Location): boolean {
  return a.scope === b.scope && a.name === b.name;
}

/** `zones/us-a` or `regions/us`: the path segment pair of the location. */
export function locationPath(location: Location): string {
  return `${location.scope}/${location.name}`;
}

/** The field a resource names its location in: `zone` for zonal ones, `region` for regional ones. */
export function locationField(location: Location): "zone" | "region" {
  return location.scope === "zones" ? "zone" : "region";
}
