// Live updates for the dashboard: server-sent events fed by the manager's shared informers (no extra
// watches). Each change becomes one message; every connection only receives messages of namespaces its
// user may list (SubjectAccessReview, cached), so the stream leaks nothing the JSON API would not show.
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
import { groupSummary, requestSummary, type CapacityHistory } from "./views.js";

export interface StreamMessage {
  readonly type: "request" | "group" | "event";
  readonly op: StreamUpdate<unknown>["op"];
  readonly namespace: string;
  /** RBAC resource whose `list` in the namespace the receiver needs. */
  readonly resource: string;
  readonly data: unknown;
}

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

  /** Subscribes to the informers; each change is published to the clients allowed to see it. */
  watch(
    requests: Informer<ResizeRequest>,
    groups: Informer<InstanceGroupManager>,
    events: Informer<KubeEvent>,
    history: CapacityHistory,
  ): void {
    const ns = (o: { metadata?: { namespace?: string } }): string => o.metadata?.namespace ?? "";
    this.unsubscribe.push(
      requests.addEventHandler({
        onAdd: (rr) => {
          this.publish({
            type: "request",
            op: "upsert",
            namespace: ns(rr),
            resource: RESIZE_REQUEST.plural,
            data: requestSummary(rr),
          });
        },
        onUpdate: (_old, rr) => {
          this.publish({
            type: "request",
            op: "upsert",
            namespace: ns(rr),
            resource: RESIZE_REQUEST.plural,
            data: requestSummary(rr),
          });
        },
        onDelete: (rr) => {
          this.publish({
            type: "request",
            op: "delete",
            namespace: ns(rr),
            resource: RESIZE_REQUEST.plural,
            data: requestSummary(rr),
          });
        },
      }),
      groups.addEventHandler({
        onAdd: (g) => {
          const summary = groupSummary(g);
          history.record(summary, Date.now());
          this.publish({
            type: "group",
            op: "upsert",
            namespace: ns(g),
            resource: INSTANCE_GROUP_MANAGER.plural,
            data: summary,
          });
        },
        onUpdate: (_old, g) => {
          const summary = groupSummary(g);
          history.record(summary, Date.now());
          this.publish({
            type: "group",
            op: "upsert",
            namespace: ns(g),
            resource: INSTANCE_GROUP_MANAGER.plural,
            data: summary,
          });
        },
        onDelete: (g) => {
          history.forget(ns(g), g.metadata.name ?? "");
          this.publish({
            type: "group",
            op: "delete",
            namespace: ns(g),
            resource: INSTANCE_GROUP_MANAGER.plural,
            data: groupSummary(g),
          });
        },
      }),
      events.addEventHandler({
        onAdd: (e) => {
          this.publish({
            type: "event",
            op: "upsert",
            namespace: ns(e),
            resource: RESIZE_REQUEST.plural,
            data: eventSummary(e),
          });
        },
        onUpdate: (_old, e) => {
          this.publish({
            type: "event",
            op: "upsert",
            namespace: ns(e),
            resource: RESIZE_REQUEST.plural,
            data: eventSummary(e),
          });
        },
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
