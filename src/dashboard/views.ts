// What the dashboard shows, computed from the objects alone (pure): group and request summaries, a
// request's timeline from its status conditions, and the per-group capacity history behind the chart.
// The browser UI loads this module as well (byNewest) and reads its types: type imports only here
// (test/unit/dashboard/ui-imports.test.ts).
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import type { ResizeRequest } from "../api/resize-request.js";

export interface GroupSummary {
  readonly namespace: string;
  readonly name: string;
  /** Exactly one of zone and region is set. */
  readonly zone: string | null;
  readonly region: string | null;
  readonly target: string;
  readonly targetSize: number | null;
  readonly ready: number | null;
  readonly max: number | null;
  readonly min: number;
  readonly queued: number;
  readonly active: number;
  readonly provisioning: string | null;
  readonly healthy: boolean | null;
}

export function groupSummary(g: InstanceGroupManager): GroupSummary {
  const readyCondition = g.status?.conditions?.find((c) => c.type === "Ready");
  return {
    namespace: g.metadata.namespace ?? "",
    name: g.metadata.name ?? "",
    zone: g.spec.zone ?? null,
    region: g.spec.region ?? null,
    target: `${g.spec.targetRef.kind}/${g.spec.targetRef.name}`,
    targetSize: g.status?.targetSize ?? null,
    ready: g.status?.readyInstances ?? null,
    max: g.spec.maxSize ?? null,
    min: g.spec.minSize,
    queued: g.status?.queuedRequests ?? 0,
    active: g.status?.activeRequests ?? 0,
    provisioning: g.status?.provisioningRequest ?? null,
    healthy: readyCondition ? readyCondition.status === "True" : null,
  };
}

export interface RequestSummary {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly group: string;
  /** `zone local-a` or `region local`, from the status the controller wrote (null before that). */
  readonly location: string | null;
  readonly size: number;
  readonly state: string;
  readonly reason: string | null;
  /** Waiting in its group's queue (the UI derives the position from the FIFO order). */
  readonly queued: boolean;
  readonly runUntil: string | null;
  /** The instances the request lists (status.instances; the UI words them with api/instance-list.ts). */
  readonly instances: readonly { readonly kind: string; readonly name: string }[];
  readonly instancesTruncated: boolean;
  readonly attempts: number;
  readonly created: string | null;
  readonly cancelRequested: boolean;
  readonly description: string | null;
}

/** The last path segment of the request's zone or region URL, named as such. */
function locationOf(rr: ResizeRequest): string | null {
  const { zone, region } = rr.status ?? {};
  if (zone !== undefined) return `zone ${zone.slice(zone.lastIndexOf("/") + 1)}`;
  if (region !== undefined) return `region ${region.slice(region.lastIndexOf("/") + 1)}`;
  return null;
}

export function requestSummary(rr: ResizeRequest): RequestSummary {
  return {
    namespace: rr.metadata.namespace ?? "",
    name: rr.metadata.name ?? "",
    uid: rr.metadata.uid ?? "",
    group: rr.spec.instanceGroupManager,
    location: locationOf(rr),
    size: rr.spec.resizeBy ?? rr.spec.instances?.length ?? 0,
    state: rr.status?.state ?? "CREATING",
    reason: rr.status?.reason ?? null,
    queued: rr.status?.conditions?.some((c) => c.type === "Queued" && c.status === "True") ?? false,
    runUntil: rr.status?.runUntil ?? null,
    instances: rr.status?.instances ?? [],
    instancesTruncated: rr.status?.instancesTruncated ?? false,
    attempts: rr.status?.attempts ?? 0,
    created: rr.metadata.creationTimestamp ?? null,
    cancelRequested: rr.spec.cancel,
    description: rr.spec.description ?? null,
  };
}

/** Newest first, then by name, so lists do not jump around on updates. */
export function byNewest(a: RequestSummary, b: RequestSummary): number {
  return (b.created ?? "").localeCompare(a.created ?? "") || a.name.localeCompare(b.name);
}

export interface TimelineEntry {
  readonly time: string;
  readonly kind: "created" | "condition" | "succeeded" | "runUntil";
  readonly title: string;
  readonly detail: string | null;
  readonly status?: string;
}

/**
 * The request's history as far as its object tells it: creation, each condition's last transition
 * (conditions keep only the latest one per type), success and the release time.
 */
export function timeline(rr: ResizeRequest): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  if (rr.metadata.creationTimestamp)
    entries.push({ time: rr.metadata.creationTimestamp, kind: "created", title: "Created", detail: null });
  for (const c of rr.status?.conditions ?? [])
    entries.push({
      time: c.lastTransitionTime,
      kind: "condition",
      title: `${c.type}=${c.status}`,
      detail: [c.reason, c.message].filter(Boolean).join(": ") || null,
      status: c.status,
    });
  if (rr.status?.succeededTime)
    entries.push({ time: rr.status.succeededTime, kind: "succeeded", title: "Succeeded", detail: null });
  if (rr.status?.runUntil)
    entries.push({
      time: rr.status.runUntil,
      kind: "runUntil",
      title: rr.status.release ? "Released" : "Runs until",
      detail: null,
    });
  // Within one second, creation comes first and the end of the story last.
  const rank = { created: 0, condition: 1, succeeded: 2, runUntil: 3 } as const;
  return entries.sort(
    (a, b) => a.time.localeCompare(b.time) || rank[a.kind] - rank[b.kind] || a.title.localeCompare(b.title),
  );
}

/** The attempt information of a request: current provisioning, last error, counters. */
export function attempts(rr: ResizeRequest) {
  return {
    count: rr.status?.attempts ?? 0,
    current: rr.status?.provisioning ?? null,
    nextAttemptTime: rr.status?.nextAttemptTime ?? null,
    lastError: rr.status?.lastAttempt?.error?.errors ?? [],
    error: rr.status?.error?.errors ?? [],
    release: rr.status?.release ?? null,
  };
}

export interface CapacityPoint {
  /** Milliseconds since the epoch. */
  readonly t: number;
  readonly targetSize: number | null;
  readonly ready: number | null;
  readonly max: number | null;
  readonly queued: number;
}
