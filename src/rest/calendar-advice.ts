// `advice.calendarMode` (docs/booking.md "Asking for advice"): the earliest window per group of the
// project's region in which the asked instances fit, best first — the rule FutureReservations are
// approved by (src/booking/advice.ts), read from the cluster at the call. The compute API's spec is
// mapped field by field; a field this API cannot honour is refused with 400, never ignored.
import type { CalendarModeAdviceRequest, FutureResourcesSpec } from "../api/calendar-advice.js";
import { FUTURE_RESERVATIONS, INSTANCE_GROUP_MANAGERS, RESIZE_REQUESTS } from "../api/kinds.js";
import { groupLocation, locationPath } from "../api/location.js";
import { rfc3339 } from "../api/time.js";
import { advise, groupSchedule, type AdviceQuery, type GroupCapacity } from "../booking/advice.js";
import { InvalidError } from "./errors.js";
import type { CallContext, Reply } from "./route.js";

type Params = { readonly project: string; readonly region: string };

/** How far ahead a start is looked for by default: the longest window a booking may have. */
const DEFAULT_RANGE_MS = 90 * 24 * 3600_000;

const invalid = (field: string, message: string): InvalidError =>
  new InvalidError(message, [{ message, location: field, locationType: "body" }]);

/** A google-duration (`259200s`, `1.5s`) in ms. */
function durationMs(text: string | undefined, field: string): number | undefined {
  if (text === undefined) return undefined;
  const m = /^(\d{1,12})(?:\.(\d{1,9}))?s$/.exec(text);
  if (!m) throw invalid(field, `${field} must be a duration in seconds such as 259200s.`);
  return Number(m[1]) * 1000 + Math.floor(Number(`0.${m[2] ?? "0"}`) * 1000);
}

function timeMs(text: string | undefined, field: string): number | undefined {
  if (text === undefined) return undefined;
  const at = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(at))
    throw invalid(field, `${field} must be an RFC 3339 time.`);
  return at;
}

/** The one spec of the request, checked: what it asks as an AdviceQuery, and which groups it allows. */
export function adviceOf(
  body: CalendarModeAdviceRequest,
  now: number,
): { key: string; query: AdviceQuery; group?: string; denied: ReadonlySet<string> } {
  const specs = Object.entries(body.futureResourcesSpecs ?? {});
  const [only] = specs;
  if (specs.length !== 1 || !only)
    throw invalid("futureResourcesSpecs", "futureResourcesSpecs must hold exactly one spec.");
  const [key, spec]: [string, FutureResourcesSpec] = only;
  const at = `futureResourcesSpecs.${key}`;
  if (spec.deploymentType === "DENSE")
    throw invalid(`${at}.deploymentType`, "deploymentType DENSE is not supported.");
  const target = spec.targetResources;
  if (target?.aggregateResources)
    throw invalid(
      `${at}.targetResources.aggregateResources`,
      "aggregateResources is not supported: ask for specificSkuResources of a group.",
    );
  const sku = target?.specificSkuResources;
  if (sku?.localSsdPartitions?.length)
    throw invalid(
      `${at}.targetResources.specificSkuResources.localSsdPartitions`,
      "localSsdPartitions is not supported.",
    );
  const countField = `${at}.targetResources.specificSkuResources.instanceCount`;
  const count = Number(sku?.instanceCount ?? NaN);
  if (!Number.isSafeInteger(count) || count < 1 || !/^\d+$/.test(sku?.instanceCount ?? ""))
    throw invalid(countField, `${countField} is required: a whole number of instances, 1 or more.`);
  const range = spec.timeRangeSpec;
  const minField = `${at}.timeRangeSpec.minDuration`;
  const minDurationMs = durationMs(range?.minDuration, minField);
  if (minDurationMs === undefined || minDurationMs <= 0)
    throw invalid(minField, `${minField} is required and must be more than 0s.`);
  const maxDurationMs = durationMs(range?.maxDuration, `${at}.timeRangeSpec.maxDuration`) ?? minDurationMs;
  if (maxDurationMs < minDurationMs)
    throw invalid(`${at}.timeRangeSpec.maxDuration`, "maxDuration must not be shorter than minDuration.");
  const notEarlierThan = Math.max(
    now,
    timeMs(range?.startTimeNotEarlierThan, `${at}.timeRangeSpec.startTimeNotEarlierThan`) ?? now,
  );
  const notLaterThan =
    timeMs(range?.startTimeNotLaterThan, `${at}.timeRangeSpec.startTimeNotLaterThan`) ??
    notEarlierThan + DEFAULT_RANGE_MS;
  if (notLaterThan < notEarlierThan)
    throw invalid(
      `${at}.timeRangeSpec.startTimeNotLaterThan`,
      "startTimeNotLaterThan must not be earlier than startTimeNotEarlierThan (or now).",
    );
  const denied = new Set(
    Object.entries(spec.locationPolicy?.locations ?? {})
      .filter(([, l]) => l.preference === "DENY")
      .map(([location]) => location),
  );
  return {
    key,
    query: { count, minDurationMs, maxDurationMs, notEarlierThan, notLaterThan },
    ...(sku?.machineType !== undefined && { group: sku.machineType }),
    denied,
  };
}

/** The region a zone belongs to, by the compute API's naming: the zone's name without its last `-suffix`. */
export const regionOfZone = (zone: string): string => zone.slice(0, Math.max(0, zone.lastIndexOf("-")));

export async function calendarMode(call: CallContext<Params, CalendarModeAdviceRequest>): Promise<Reply> {
  const { deps, params, body } = call;
  const now = deps.now();
  const { key, query, group, denied } = adviceOf(body, now);
  const at = { namespace: params.project };
  const [groups, requests, bookings] = await Promise.all([
    deps.kube.resource(INSTANCE_GROUP_MANAGERS).list(at),
    deps.kube.resource(RESIZE_REQUESTS).list(at),
    deps.kube.resource(FUTURE_RESERVATIONS).list(at),
  ]);
  const where = new Map<string, string>();
  const capacities = groups.items.flatMap((g): GroupCapacity[] => {
    const name = g.metadata.name ?? "";
    const location = groupLocation(g.spec);
    const region = location.scope === "regions" ? location.name : regionOfZone(location.name);
    const path = locationPath(location);
    if (region !== params.region || denied.has(path) || (group !== undefined && name !== group)) return [];
    const of = <T extends { spec: { instanceGroupManager: string } }>(items: readonly T[]): T[] =>
      items.filter((x) => x.spec.instanceGroupManager === name);
    const schedule = groupSchedule(g, of(requests.items), of(bookings.items), now);
    where.set(name, path);
    return schedule ? [{ group: name, schedule }] : [];
  });
  return {
    body: {
      recommendations: advise(capacities, query).map((r) => ({
        recommendationsPerSpec: {
          [key]: {
            startTime: rfc3339(r.start),
            endTime: rfc3339(r.end),
            location: where.get(r.group),
            recommendationId: `instanceGroupManagers/${r.group}`,
            recommendationType: "FUTURE_RESERVATION",
          },
        },
      })),
    },
  };
}
