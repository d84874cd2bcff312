// API objects for the booking tests: a group, its ResizeRequests in the states that hold capacity or
// not, and FutureReservations, at minute resolution from T0.
import type { FutureReservation, ProcurementStatusName } from "../../../src/api/future-reservation.js";
import { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import { API_VERSION } from "../../../src/api/names.js";
import type { ResizeRequest, ResizeRequestStatus } from "../../../src/api/resize-request.js";
import { rfc3339 } from "../../../src/api/time.js";

export const T0 = Date.parse("2030-01-01T00:00:00.000Z");
export const MIN = 60_000;
export const NS = "team-a";
export const GROUP = "pool";
export const iso = rfc3339;

export function group(
  o: { maxSize?: number; minSize?: number; targetSize?: number } = {},
): InstanceGroupManager {
  return InstanceGroupManager.parse({
    apiVersion: API_VERSION,
    kind: "InstanceGroupManager",
    metadata: { name: GROUP, namespace: NS, uid: "uid-pool", generation: 1 },
    spec: {
      zone: "local-a",
      targetRef: { apiVersion: "apps/v1", kind: "StatefulSet", name: GROUP },
      ...(o.maxSize !== undefined && { maxSize: o.maxSize }),
      minSize: o.minSize ?? 0,
      provisioningTimeout: "10m",
    },
    ...(o.targetSize !== undefined && { status: { targetSize: o.targetSize } }),
  });
}

export type RequestKind =
  | { readonly kind: "queued" }
  /** SUCCEEDED: released at runUntil, or never without one. */
  | { readonly kind: "running"; readonly runUntil?: number }
  /** SUCCEEDED, its run duration over and its instances released. */
  | { readonly kind: "released" }
  /** ACCEPTED with an applied attempt: deadline, and a run duration in minutes (none: for ever). */
  | { readonly kind: "attempt"; readonly deadline: number; readonly runMinutes?: number };

export function request(name: string, size: number, k: RequestKind): ResizeRequest {
  let status: ResizeRequestStatus = { state: "ACCEPTED" };
  let run: number | undefined;
  if (k.kind === "running") {
    status = { state: "SUCCEEDED", ...(k.runUntil !== undefined && { runUntil: iso(k.runUntil) }) };
    run = k.runUntil === undefined ? undefined : 60;
  }
  if (k.kind === "released") {
    run = 60;
    status = {
      state: "SUCCEEDED",
      runUntil: iso(T0 - MIN),
      release: {
        phase: "Applied",
        baseReplicas: size,
        targetReplicas: 0,
        startedTime: iso(T0 - MIN),
        appliedTime: iso(T0 - MIN),
      },
    };
  }
  if (k.kind === "attempt") {
    run = k.runMinutes;
    status = {
      state: "ACCEPTED",
      provisioning: {
        attempt: 1,
        phase: "Applied",
        baseReplicas: 0,
        targetReplicas: size,
        startedTime: iso(k.deadline - 10 * MIN),
        appliedTime: iso(k.deadline - 10 * MIN),
        deadline: iso(k.deadline),
      },
    };
  }
  return {
    apiVersion: API_VERSION,
    kind: "ResizeRequest",
    metadata: { name, namespace: NS, creationTimestamp: iso(T0 - 60 * MIN) },
    spec: {
      instanceGroupManager: GROUP,
      resizeBy: size,
      cancel: false,
      ...(run !== undefined && { requestedRunDuration: { seconds: String(run * 60) } }),
    },
    status,
  };
}

export interface BookingOptions {
  readonly start: number;
  /** Window length, ms. */
  readonly length: number;
  readonly status?: ProcurementStatusName;
  readonly cancel?: boolean;
  /** Creation time; FIFO order. */
  readonly created?: number;
  /** Use endTime instead of duration. */
  readonly endTime?: boolean;
}

export function booking(name: string, totalCount: number, o: BookingOptions): FutureReservation {
  return {
    apiVersion: API_VERSION,
    kind: "FutureReservation",
    metadata: {
      name,
      namespace: NS,
      uid: `uid-${name}`,
      generation: 1,
      resourceVersion: "1",
      creationTimestamp: iso(o.created ?? T0),
    },
    spec: {
      instanceGroupManager: GROUP,
      totalCount,
      timeWindow: {
        startTime: iso(o.start),
        ...(o.endTime
          ? { endTime: iso(o.start + o.length) }
          : {
              duration: {
                seconds: String(Math.floor(o.length / 1000)),
                nanos: (o.length % 1000) * 1_000_000,
              },
            }),
      },
      cancel: o.cancel ?? false,
    },
    ...(o.status && { status: { procurementStatus: o.status } }),
  };
}
