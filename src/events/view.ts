// An events.k8s.io/v1 Event as its readers see it — the dashboard (informer, JSON API, live stream) and
// `kubectl resize explain`: the fields they read, decoded when an Event is received, and its one-line
// summary. The browser UI reads the summary's type (a type import: this module loads zod).
import { z } from "zod";
import type { KubeObject } from "../runtime/object.js";

/** An events.k8s.io/v1 Event, as far as its readers read it. */
export interface KubeEvent extends KubeObject {
  readonly metadata?: KubeObject["metadata"] & { creationTimestamp?: string };
  readonly regarding?: { kind?: string; name?: string; namespace?: string; uid?: string };
  readonly reason?: string;
  readonly note?: string;
  readonly type?: string;
  readonly action?: string;
  readonly reportingController?: string;
  readonly eventTime?: string | null;
  readonly series?: { count?: number; lastObservedTime?: string };
  readonly deprecatedLastTimestamp?: string | null;
  readonly deprecatedCount?: number | null;
}

const text = z.string().optional();

export const KubeEventView: z.ZodType<KubeEvent> = z.looseObject({
  apiVersion: text,
  kind: text,
  metadata: z
    .looseObject({
      name: text,
      namespace: text,
      uid: text,
      resourceVersion: text,
      creationTimestamp: text,
    })
    .optional(),
  regarding: z.looseObject({ kind: text, name: text, namespace: text, uid: text }).optional(),
  reason: text,
  note: text,
  type: text,
  action: text,
  reportingController: text,
  eventTime: z.string().nullable().optional(),
  series: z.looseObject({ count: z.number().optional(), lastObservedTime: text }).optional(),
  // The API server sends null for these when the event was created through events.k8s.io/v1.
  deprecatedLastTimestamp: z.string().nullable().optional(),
  deprecatedCount: z.number().nullable().optional(),
});

export interface EventSummary {
  readonly namespace: string;
  readonly name: string;
  readonly time: string;
  readonly type: string;
  readonly reason: string;
  readonly note: string;
  readonly object: string;
  readonly count: number;
}

const EPOCH = new Date(0).toISOString();

/** When an Event last happened (ISO 8601): its series' last observation, else when it was recorded. */
export function eventTime(e: KubeEvent): string {
  return (
    e.series?.lastObservedTime ??
    e.eventTime ??
    e.deprecatedLastTimestamp ??
    e.metadata?.creationTimestamp ??
    EPOCH
  );
}

export function eventSummary(e: KubeEvent): EventSummary {
  return {
    namespace: e.metadata?.namespace ?? "",
    name: e.metadata?.name ?? "",
    time: eventTime(e),
    type: e.type ?? "Normal",
    reason: e.reason ?? "",
    note: e.note ?? "",
    object: `${e.regarding?.kind ?? ""}/${e.regarding?.name ?? ""}`,
    count: e.series?.count ?? e.deprecatedCount ?? 1,
  };
}
