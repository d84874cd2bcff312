// The JSON answers of /dashboard/api and the payloads of its live stream, defined once: the server's
// handlers (api.ts, sse.ts) are checked against these types and the browser UI (./ui) reads them.
// Types only, and nothing that needs Node or Express: the browser's program type-checks this file.
import type { Operation } from "../api/operation.js";
import type { ResizeRequestSpec } from "../api/resize-request.js";
import type { AttemptHistory, QueueRelease, RequestInsight } from "../queue/insight.js";
import type { EventSummary } from "../events/view.js";
import type { BookingSummary } from "./booking-timeline.js";
import type { attempts, CapacityPoint, GroupSummary, RequestSummary, TimelineEntry } from "./views.js";

/** What a session tells about its user (the `session` callback exposes nothing else). */
export interface SessionUser {
  readonly name: string | null;
  readonly email: string | null;
  readonly image: string | null;
  readonly groups: readonly string[];
}

/** GET /me: who is signed in, as whom RBAC sees them, and the CSRF token for mutations. */
export interface MeAnswer {
  readonly user: SessionUser;
  readonly expires: string;
  readonly kubernetes: { readonly username: string; readonly groups: readonly string[] };
  readonly csrfToken: string;
  /** Create and cancel are available (the operations store is configured). */
  readonly mutations: boolean;
  /** Where Auth.js is mounted and where a signed-out user signs in (AUTH_BASE_PATH, AUTH_PAGES_SIGN_IN). */
  readonly auth: AuthPaths;
}

export interface AuthPaths {
  readonly basePath: string;
  readonly signInPage: string;
}

/** GET /groups, /requests, /events, /operations. */
export interface ItemsAnswer<T> {
  readonly items: readonly T[];
}

/** GET /groups/:namespace/:name/capacity. */
export interface CapacityAnswer {
  readonly group: GroupSummary;
  readonly points: readonly CapacityPoint[];
  readonly now: number;
}

/** A moment capacity frees: a request's instances are released. */
export type { QueueRelease };

/**
 * GET /groups/:namespace/:name/queue: the queue model's answer at `now` (src/queue/insight.ts), derived
 * on read from the informer caches, and when capacity frees (the chart's forecast).
 */
export interface QueueAnswer {
  readonly now: number;
  /** Whether the group exists (its requests may name one that does not, yet). */
  readonly exists: boolean;
  readonly queueLength: number;
  /** The group's recent attempts the ETAs are computed from. */
  readonly history: AttemptHistory | null;
  /** Every request in the queue, in FIFO order (position 1 first), the one in an attempt included. */
  readonly requests: readonly RequestInsight[];
  readonly releases: readonly QueueRelease[];
}

/** GET /requests/:namespace/:name. */
export interface RequestDetailAnswer {
  readonly request: RequestSummary;
  readonly spec: ResizeRequestSpec;
  readonly timeline: readonly TimelineEntry[];
  readonly attempts: ReturnType<typeof attempts>;
  readonly events: readonly EventSummary[];
  readonly operations: readonly Operation[];
  /** `namespace/name` of the ProvisioningRequest (and Kueue Workload) the request serves, if any. */
  readonly servedBy: { readonly provisioningRequest?: string; readonly workload?: string };
}

/** The data of each event type of /dashboard/api/stream. */
export interface StreamPayloads {
  readonly request: RequestSummary;
  readonly group: GroupSummary;
  readonly event: EventSummary;
  readonly booking: BookingSummary;
}

/** One message of the stream: its `data:` line. */
export interface StreamUpdate<T> {
  readonly op: "upsert" | "delete";
  readonly data: T;
}
