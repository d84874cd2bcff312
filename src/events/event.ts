// Pure construction of events.k8s.io/v1 Event objects the API server accepts. Every limit here mirrors
// the server's create validation for events.k8s.io/v1 (ValidateEventCreate): Go's len() counts UTF-8
// bytes, so every length below is a byte length, not a count of JavaScript characters.
import {
  V1MicroTime,
  type EventsV1Event,
  type KubernetesObject,
  type V1ObjectReference,
} from "@kubernetes/client-node";
import { REPORTING_CONTROLLER } from "../api/names.js";

/** Server-side limits of events.k8s.io/v1 (bytes). */
export const LIMITS = {
  action: 128,
  reason: 128,
  reportingInstance: 128,
  note: 1024,
  name: 253,
} as const;

/** Appended to a note that was cut to fit `LIMITS.note`, so readers know text is missing. */
export const TRUNCATION_MARKER = "…[truncated]";

export type EventType = "Normal" | "Warning";
export const EVENT_TYPES: readonly EventType[] = ["Normal", "Warning"];

/** A namespaced object an event is about (or related to). */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  resourceVersion?: string;
}

/** What a caller wants recorded; `reason`/`action`/`type` usually come from an event catalogue. */
export interface EmitRequest {
  regarding: ObjectRef;
  related?: ObjectRef;
  type: EventType;
  reason: string;
  action: string;
  note: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function byteLength(s: string): number {
  return encoder.encode(s).length;
}

/** Cuts `s` to at most `max` UTF-8 bytes without splitting a character. */
export function truncateBytes(s: string, max: number): string {
  const bytes = encoder.encode(s);
  if (bytes.length <= max) return s;
  let end = max;
  // Step back over UTF-8 continuation bytes (10xxxxxx) so the cut lands on a character boundary.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return decoder.decode(bytes.subarray(0, end));
}

/** A note within `LIMITS.note` bytes; longer notes keep their beginning and end with the marker. */
export function truncateNote(note: string): string {
  if (byteLength(note) <= LIMITS.note) return note;
  return truncateBytes(note, LIMITS.note - byteLength(TRUNCATION_MARKER)) + TRUNCATION_MARKER;
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Problems with a free-text field the server limits to `max` bytes and requires non-empty. */
function checkRequired(field: string, value: string, max: number): string[] {
  if (value.length === 0) return [`${field} must not be empty`];
  const size = byteLength(value);
  return size > max ? [`${field} must be at most ${max} bytes (has ${size})`] : [];
}

/** Problems with `reportingInstance` (the pod name): non-empty, at most 128 bytes. */
export function checkReportingInstance(value: string): string[] {
  return checkRequired("reportingInstance", value, LIMITS.reportingInstance);
}

function checkRef(field: string, ref: ObjectRef, namespaced: boolean): string[] {
  const problems: string[] = [];
  for (const key of ["apiVersion", "kind", "name"] as const) {
    if (ref[key].length === 0) problems.push(`${field}.${key} must not be empty`);
  }
  // The event lives in the namespace of `regarding`; the server rejects a mismatch.
  if (namespaced && !DNS1123_LABEL.test(ref.namespace)) {
    problems.push(`${field}.namespace must be a namespace name (got ${JSON.stringify(ref.namespace)})`);
  }
  return problems;
}

/** Every reason the server would reject an event built from `req` (the note is truncated, never rejected). */
export function checkRequest(req: EmitRequest): string[] {
  return [
    ...(EVENT_TYPES.includes(req.type)
      ? []
      : [`type must be Normal or Warning (got ${JSON.stringify(req.type)})`]),
    ...checkRequired("reason", req.reason, LIMITS.reason),
    ...checkRequired("action", req.action, LIMITS.action),
    ...checkRef("regarding", req.regarding, true),
    ...(req.related ? checkRef("related", req.related, false) : []),
  ];
}

/** Unique, increasing nanosecond stamps for event names: wall clock, bumped when two fall in one ms. */
export function nextNameNanos(previous: bigint, nowMs: number): bigint {
  const wall = BigInt(Math.trunc(nowMs)) * 1_000_000n;
  return wall > previous ? wall : previous + 1n;
}

/**
 * `<regarding name>.<hex nanoseconds>` like client-go. The name part is reduced to DNS-subdomain
 * characters and shortened so the whole stays within 253 characters.
 */
export function eventName(regardingName: string, nanos: bigint): string {
  const suffix = `.${nanos.toString(16)}`;
  const cleaned = regardingName
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, "-")
    .slice(0, LIMITS.name - suffix.length)
    .replace(/^[^a-z0-9]+/, "")
    .replace(/[^a-z0-9]+$/, "");
  return `${cleaned.length > 0 ? cleaned : "event"}${suffix}`;
}

/**
 * The ObjectRef of a Kubernetes object. Items of list responses carry no apiVersion and kind; pass
 * them as `type` then.
 */
export function objectRef(
  obj: KubernetesObject,
  type: { apiVersion: string; kind: string } = {
    apiVersion: obj.apiVersion ?? "",
    kind: obj.kind ?? "",
  },
): ObjectRef {
  const meta = obj.metadata ?? {};
  return {
    apiVersion: type.apiVersion,
    kind: type.kind,
    namespace: meta.namespace ?? "",
    name: meta.name ?? "",
    uid: meta.uid ?? "",
    ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
  };
}

export function toObjectReference(ref: ObjectRef): V1ObjectReference {
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    ...(ref.namespace ? { namespace: ref.namespace } : {}),
    name: ref.name,
    uid: ref.uid,
    ...(ref.resourceVersion ? { resourceVersion: ref.resourceVersion } : {}),
  };
}

/** MicroTime with the microsecond digits the server's parser insists on. */
export function microTime(ms: number): V1MicroTime {
  return new V1MicroTime(ms);
}

export interface BuildContext {
  reportingInstance: string;
  nowMs: number;
  nameNanos: bigint;
}

/** The singleton Event for `req` observed at `ctx.nowMs`; `req` must have passed `checkRequest`. */
export function toEvent(req: EmitRequest, ctx: BuildContext): EventsV1Event {
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name: eventName(req.regarding.name, ctx.nameNanos), namespace: req.regarding.namespace },
    eventTime: microTime(ctx.nowMs),
    type: req.type,
    reason: req.reason,
    action: req.action,
    note: truncateNote(req.note),
    regarding: toObjectReference(req.regarding),
    ...(req.related ? { related: toObjectReference(req.related) } : {}),
    reportingController: REPORTING_CONTROLLER,
    reportingInstance: ctx.reportingInstance,
  };
}

/**
 * The isomorphism key of client-go's event cache: events with equal keys are one series. The
 * `resourceVersion` of the references is left out on purpose: the reconciler updates the request's
 * status between attempts, and repeats must still aggregate.
 */
export function isomorphismKey(req: EmitRequest, reportingInstance: string): string {
  const ref = (r: ObjectRef | undefined) => (r ? [r.apiVersion, r.kind, r.namespace, r.name, r.uid] : null);
  return JSON.stringify([
    req.type,
    req.action,
    req.reason,
    REPORTING_CONTROLLER,
    reportingInstance,
    ref(req.regarding),
    ref(req.related),
  ]);
}
