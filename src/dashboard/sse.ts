// Live updates for the dashboard: server-sent events fed by the manager's shared informers (no extra
// watches), one relay per informer. Each change becomes one message; every connection only receives
// messages of namespaces its user may list (SubjectAccessReview, cached), so the stream leaks nothing
// the JSON API would not show.
import type { Request, Response } from "express";
import type { Logger } from "pino";
import { INSTANCE_GROUP_MANAGER, RESIZE_REQUEST } from "../api/names.js";
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import type { ResizeRequest } from "../api/resize-request.js";
import type { UserInfo } from "../rest/auth.js";
import type { Informer } from "../runtime/informer.js";
import type { StreamUpdate } from "./answers.js";
import type { DashboardAuthz } from "./authz.js";
import { eventSummary, type KubeEvent } from "../events/view.js";
import { groupSummary, requestSummary } from "./views.js";

export interface StreamMessage {
  readonly type: "request" | "group" | "event";
  readonly op: StreamUpdate<unknown>["op"];
  readonly namespace: string;
  /** RBAC resource whose `list` in the namespace the receiver needs. */
  readonly resource: string;
  readonly data: unknown;
}

/** What of an informer's objects the stream carries. */
export interface Relayed<T> {
  readonly type: StreamMessage["type"];
  /** RBAC resource whose `list` in the object's namespace the receiver needs. */
  readonly resource: string;
  /** The message's data: the summary the JSON API answers with, so the page merges both alike. */
  readonly summary: (obj: T) => unknown;
  /** Whether deletions are relayed (default true). */
  readonly deletes?: boolean;
}

type Namespaced = { readonly metadata?: { readonly namespace?: string } };

interface Client {
  readonly user: UserInfo;
  readonly res: Response;
  /** Keeps each client's messages in order while their RBAC checks are pending. */
  chain: Promise<void>;
}

/** SSE framing: an event name and one `data:` line (JSON never contains a raw newline). */
export function frame(message: StreamMessage): string {
  return `event: ${message.type}\ndata: ${JSON.stringify({ op: message.op, data: message.data })}\n\n`;
}

export class LiveHub {
  private readonly clients = new Set<Client>();
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    private readonly authz: DashboardAuthz,
    private readonly log: Logger,
    private readonly heartbeatMs = 15_000,
  ) {}

  /** Relays the dashboard's three informers: requests, groups and Events. */
  watch(
    requests: Informer<ResizeRequest>,
    groups: Informer<InstanceGroupManager>,
    events: Informer<KubeEvent>,
  ): void {
    this.relay(requests, { type: "request", resource: RESIZE_REQUEST.plural, summary: requestSummary });
    this.relay(groups, { type: "group", resource: INSTANCE_GROUP_MANAGER.plural, summary: groupSummary });
    // An Event is seen by whoever may list requests. Its deletion is its expiry (the API server's event
    // TTL), not news: the page keeps the Events it has.
    this.relay(events, {
      type: "event",
      resource: RESIZE_REQUEST.plural,
      summary: eventSummary,
      deletes: false,
    });
  }

  /** Publishes each change of `informer` as a message of `relayed.type` to the clients allowed to see it. */
  relay<T extends Namespaced>(informer: Informer<T>, relayed: Relayed<T>): void {
    const send = (op: StreamMessage["op"], obj: T): void => {
      this.publish({
        type: relayed.type,
        op,
        namespace: obj.metadata?.namespace ?? "",
        resource: relayed.resource,
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

  /** Serves one SSE connection until the client goes away. */
  connect(req: Request, res: Response, user: UserInfo): void {
    res.status(200);
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
    req.on("close", () => {
      clearInterval(beat);
      this.clients.delete(client);
    });
  }

  publish(message: StreamMessage): void {
    const text = frame(message);
    for (const client of this.clients) {
      client.chain = client.chain.then(async () => {
        try {
          const allowed = await this.authz.can(client.user, {
            verb: "list",
            resource: message.resource,
            namespace: message.namespace,
          });
          if (allowed && this.clients.has(client)) client.res.write(text);
        } catch (err) {
          this.log.warn(
            { err: err instanceof Error ? err.message : String(err) },
            "live update not authorized (check failed)",
          );
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
