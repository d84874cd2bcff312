// The zone or region a REST call addresses, from its path: zonal methods take `zone`, regional ones
// `region` (routes.ts declares exactly one of them on every method).
import type { Location } from "../api/location.js";
import type { Params } from "./route.js";

export function locationParam(params: Params): Location {
  const zone = params.optionalString("zone");
  return zone !== undefined
    ? { scope: "zones", name: zone }
    : { scope: "regions", name: params.string("region") };
}
