// The zone or region a REST call addresses, from its path: zonal methods take `zone`, regional ones
// `region` (routes.ts declares exactly one of them on every method, and its type says so).
import type { Location } from "../api/location.js";

export type LocationParams = { readonly zone: string } | { readonly region: string };

export function locationOf(params: LocationParams): Location {
  return "zone" in params ? { scope: "zones", name: params.zone } : { scope: "regions", name: params.region };
}
