// The fields of an events.k8s.io/v1 Event the dashboard shows, decoded when the informer receives it
// (views.ts keeps only the type, as the browser code imports it).
import { z } from "zod";
import type { KubeEvent } from "./views.js";

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
  eventTime: z.string().nullable().optional(),
  series: z.looseObject({ count: z.number().optional(), lastObservedTime: text }).optional(),
  // The API server sends null for these when the event was created through events.k8s.io/v1.
  deprecatedLastTimestamp: z.string().nullable().optional(),
  deprecatedCount: z.number().nullable().optional(),
});
