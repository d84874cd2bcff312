// Live updates for the dashboard: server-sent events fed by the manager's shared informers (no extra
// watches), one relay per informer. Each change becomes one message; every connection receives a
// message only when its user may see that object as the JSON API would show it (visibility.ts, through
// the cached SubjectAccessReviews of authz.ts), so the stream leaks nothing the JSON API would not
// show. A connection follows its session: it is checked again as often as an RBAC answer is reused,
// takes on the session's identity as it is then, and ends once the session is gone.
import type { ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { FutureReservation } from "../api/future-reservation.js";
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import type { ResizeRequest } from "../api/resize-request.js";
import type { UserInfo } from "../rest/auth.js";
import { realClock, type Clock, type Timer } from "../runtime/clock.js";
import type { Informer } from "../runtime/informer.js";
import type { StreamUpdate } from "./answers.js";
import type { DashboardAuthz } from "./authz.js";
import { eventSummary, type KubeEvent } from "../events/view.js";
import { bookingSummary } from "./bookings-view.js";
import { groupSummary, requestSummary } from "./views.js";
import type { Shown } from "./visibility.js";

export interface StreamMessage {
  /** The kind of object: who may receive the message is visibility.ts's rule for it. */
  readonly type: Shown;
  readonly op: StreamUpdate<unknown>["op"];
  readonly namespace: string;
  readonly data: unknown;
}

/** What of an informer's objects the stream carries. */
export interface Relayed<T> {
  readonly type: Shown;
  /** The message's data: the summary the JSON API answers with, so the page merges both alike. */
  readonly summary: (obj: T) => unknown;
  /** Whether deletions are relayed (default true). */
  readonly deletes?: boolean;
}

type Namespaced = { readonly metadata?: { readonly namespace?: string } };

/** The identity of a connection's session as it is now; undefined once the session is gone. */
export type SessionCheck = () => Promise<UserInfo | undefined>;

interface Client {
  /** The session's identity as last checked. */
  user: UserInfo;
  readonly res: ServerResponse;
  /** Keeps each client's messages in order while their RBAC checks are pending. */
  chain: Promise<void>;
}

/** SSE framing: an event name and one `data:` line (JSON never contains a raw newline). */
export function frame(message: StreamMessage): string {
  return `event: ${message.type}\ndata: ${JSON.stringify({ op: message.op, data: message.data })}\n\n`;
}

/**
 * Live streams one user may hold open at once (tabs, windows, sessions together): each costs a
 * connection, a heartbeat timer and a session check, so a loop of reconnects must not pile them up.
 */
export const MAX_STREAMS_PER_USER = 8;

export class LiveHub {
  private readonly clients = new Set<Client>();
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    private readonly authz: DashboardAuthz,
    private readonly log: Logger,
    private readonly heartbeatMs = 15_000,
    private readonly clock: Clock = realClock,
  ) {}

  /**
   * Relays the dashboard's informers: requests, groups, Events and, where served, FutureReservations
   * (the operator's shared cache of them, the one the queue and the booking controller read).
   */
  watch(
    requests: Informer<ResizeRequest>,
    groups: Informer<InstanceGroupManager>,
    events: Informer<KubeEvent>,
    bookings?: Informer<FutureReservation>,
  ): void {
    this.relay(requests, { type: "request", summary: requestSummary });
    this.relay(groups, { type: "group", summary: groupSummary });
    if (bookings) this.relay(bookings, { type: "booking", summary: bookingSummary });
    // An Event's deletion is its expiry (the API server's event TTL), not news: the page keeps the
    // Events it has.
    this.relay(events, { type: "event", summary: eventSummary, deletes: false });
  }

  /** Publishes each change of `informer` as a message of `relayed.type` to the clients allowed to see it. */
  relay<T extends Namespaced>(informer: Informer<T>, relayed: Relayed<T>): void {
    const send = (op: StreamMessage["op"], obj: T): void => {
      this.publish({
        type: relayed.type,
        op,
        namespace: obj.metadata?.namespace ?? "",
        data: relayed.summary(obj),
      });
    };
    this.unsubscribe.push(
      informer.addEventHandler({
        onAdd: (obj) => {
          send("upsert", obj);
        },
        onUpdate: (_old, obj) => {
          send("upsert", obj);
        },
        ...(relayed.deletes !== false && {
          onDelete: (obj: T) => {
            send("delete", obj);
          },
        }),
      }),
    );
  }

  /** Whether `user` may open one more stream (MAX_STREAMS_PER_USER). */
  admits(user: UserInfo): boolean {
    let open = 0;
    for (const c of this.clients) if (c.user.username === user.username) open += 1;
    return open < MAX_STREAMS_PER_USER;
  }

  /**
   * Serves one SSE connection until the client goes away or its session ends: `session` is asked
   * again every `authz.ttlMs` (the age at which an RBAC answer is asked again too).
   */
  connect(res: ServerResponse, user: UserInfo, session: SessionCheck): void {
    res.statusCode = 200;
    res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
    res.setHeader("Cache-Control", "no-cache, no-transform");
    // Proxies such as nginx would otherwise buffer the stream.
    res.setHeader("X-Accel-Buffering", "no");
    res.flushHeaders();
    res.write("retry: 2000\n: connected\n\n");
    const client: Client = { user, res, chain: Promise.resolve() };
    this.clients.add(client);
    const beat = setInterval(() => {
      res.write(": ping\n\n");
    }, this.heartbeatMs);
    let recheck: Timer | undefined;
    const follow = (): void => {
      recheck = this.clock.setTimer(() => {
        void this.follow(client, session).then(() => {
          if (this.clients.has(client)) follow();
        });
      }, this.authz.ttlMs);
    };
    follow();
    // The response closes when the client goes away and when the stream is ended here.
    res.on("close", () => {
      clearInterval(beat);
      recheck?.cancel();
      this.clients.delete(client);
    });
  }

  /** Takes on the session's identity as it is now, or ends the stream when the session is gone. */
  private async follow(client: Client, session: SessionCheck): Promise<void> {
    let user: UserInfo | undefined;
    try {
      user = await session();
    } catch (err) {
      // Fail closed: the browser reconnects, and the route guard decides about the session then.
      this.log.warn({ err }, "live stream: the session could not be checked; ending the stream");
    }
    if (!this.clients.has(client)) return;
    if (user) client.user = user;
    else this.end(client);
  }

  /** Ends one connection (the browser reconnects, and the route guard decides again). */
  private end(client: Client): void {
    this.clients.delete(client);
    client.res.end();
  }

  publish(message: StreamMessage): void {
    const text = frame(message);
    for (const client of this.clients) {
      client.chain = client.chain.then(async () => {
        try {
          const allowed = await this.authz.sees(client.user, message.type, message.namespace);
          if (allowed && this.clients.has(client)) client.res.write(text);
        } catch (err) {
          this.log.warn({ err }, "live update not authorized (check failed)");
        }
      });
    }
  }

  /** Connections open now (tests, metrics). */
  size(): number {
    return this.clients.size;
  }

  close(): void {
    for (const off of this.unsubscribe.splice(0)) off();
    for (const client of this.clients) client.res.end();
    this.clients.clear();
  }
}
