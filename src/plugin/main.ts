// `kubectl resize`: runs one command against the cluster of the user's kubeconfig, with the user's own
// credentials (so their RBAC decides what they may see and cancel), through the project's one typed
// client. Exit codes as kubectl's: 0 done, 1 any error (usage, server, timeout).
import { KubeConfig } from "@kubernetes/client-node";
import { FUTURE_RESERVATIONS, INSTANCE_GROUP_MANAGERS, RESIZE_REQUESTS } from "../api/kinds.js";
import { isFinalState } from "../api/lifecycle.js";
import { INSTANCE_GROUP_MANAGER, REPORTING_CONTROLLER, RESIZE_REQUEST, GROUP } from "../api/names.js";
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import { readinessSource } from "../api/readiness.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { advise, groupSchedule, type GroupCapacity } from "../booking/advice.js";
import { statusTarget } from "../cache/group-queue.js";
import { ScaleClient } from "../targets/scale-client.js";
import { eventSummary, KubeEventView, type EventSummary } from "../events/view.js";
import { queueInsight, type QueueInsight, type TargetCounts } from "../queue/insight.js";
import { ApiError, isForbidden, isGone, isNotFound } from "../runtime/api-errors.js";
import { EVENTS } from "../runtime/builtin-kinds.js";
import { realClock } from "../runtime/clock.js";
import { httpKubeClient } from "../runtime/http-kube-client.js";
import { KubeHttp } from "../runtime/kube-http.js";
import { httpListWatch } from "../runtime/list-watch.js";
import type { KubeClient } from "../runtime/resource-client.js";
import { resourcePath } from "../runtime/resource-kind.js";
import { adviceQuery, HELP, parseArgs, UsageError, type Invocation, type WaitFor } from "./args.js";
import {
  adviceDocument,
  adviceTable,
  explainDocument,
  explainText,
  queueDocument,
  queueTable,
  serialize,
} from "./format.js";

export interface PluginIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** How many of a request's most recent events explain shows. */
const EVENTS_SHOWN = 10;

const RR_KIND = `${RESIZE_REQUEST.singular}.${GROUP}`;

interface Session {
  readonly client: KubeClient;
  readonly http: KubeHttp;
  readonly namespace: string;
}

function connect(inv: Invocation): Session {
  const kc = new KubeConfig();
  if (inv.kubeconfig !== undefined) kc.loadFromFile(inv.kubeconfig);
  else kc.loadFromDefault();
  if (inv.context !== undefined) {
    if (!kc.getContextObject(inv.context))
      throw new UsageError(`context "${inv.context}" does not exist`, undefined);
    kc.setCurrentContext(inv.context);
  }
  if (!kc.getCurrentCluster()) {
    throw new UsageError(
      "no cluster configured: set KUBECONFIG, --kubeconfig or a current context",
      undefined,
    );
  }
  const namespace = inv.namespace ?? kc.getContextObject(kc.currentContext)?.namespace ?? "default";
  const http = new KubeHttp(kc);
  return { client: httpKubeClient(http), http, namespace };
}

/**
 * The target's counts through /scale; the group's status when the user may not read the target, and
 * for a group counting ready Nodes (the operator counts them: a user needs no access to Nodes).
 */
export async function targetOf(
  s: Pick<Session, "client" | "namespace">,
  group: InstanceGroupManager,
): Promise<TargetCounts | undefined> {
  const source = readinessSource(group.spec);
  if (source.kind === "nodes") return statusTarget(group);
  const read = await new ScaleClient(s.client).read(s.namespace, group.spec.targetRef, source.path);
  if (read.found) return { replicas: read.replicas, readyReplicas: read.readyReplicas };
  return read.reason === "TargetForbidden" ? statusTarget(group) : undefined;
}

async function groupQueue(
  s: Session,
  groupName: string,
  group: InstanceGroupManager | undefined,
): Promise<QueueInsight> {
  const requests = await s.client.resource(RESIZE_REQUESTS).list({
    namespace: s.namespace,
    fieldSelector: `spec.instanceGroupManager=${groupName}`,
  });
  const target = group ? await targetOf(s, group) : undefined;
  // Approved bookings hold capacity ahead (docs/booking.md): the ETAs count them. None when the kind is
  // not installed, or when the user may not list them (the ETAs are then the queue's alone).
  const bookings = await s.client
    .resource(FUTURE_RESERVATIONS)
    .list({ namespace: s.namespace })
    .then(
      (l) => l.items.filter((b) => b.spec.instanceGroupManager === groupName),
      (err: unknown) => {
        if (isNotFound(err) || isForbidden(err)) return [];
        throw err;
      },
    );
  return queueInsight({ group, requests: requests.items, target, now: Date.now(), bookings });
}

async function queueCommand(s: Session, inv: Invocation, io: PluginIo): Promise<number> {
  const group = await s.client
    .resource(INSTANCE_GROUP_MANAGERS)
    .get({ namespace: s.namespace, name: inv.name });
  const q = await groupQueue(s, inv.name, group);
  const now = Date.now();
  if (inv.output === "json" || inv.output === "yaml") {
    io.stdout(serialize(queueDocument(s.namespace, inv.name, q, now), inv.output));
  } else if (q.requests.length === 0) {
    io.stderr(
      `No resize requests waiting in the queue of ${INSTANCE_GROUP_MANAGER.singular} ${inv.name} in ${s.namespace} namespace.\n`,
    );
  } else {
    io.stdout(queueTable(q, now, inv.output === "wide"));
  }
  return 0;
}

async function eventsOf(s: Session, rr: ResizeRequest): Promise<EventSummary[]> {
  const kind = { ...EVENTS, schema: KubeEventView };
  const list = await s.client.resource(kind).list({ namespace: s.namespace });
  return (
    list.items
      // Only ours: anyone who may create Events could otherwise write a request's story.
      .filter((e) => e.reportingController === REPORTING_CONTROLLER)
      .filter((e) => e.regarding?.kind === RESIZE_REQUEST.kind && e.regarding.name === rr.metadata.name)
      .filter((e) => (e.regarding?.uid ?? rr.metadata.uid) === rr.metadata.uid)
      .map(eventSummary)
      .sort((a, b) => a.time.localeCompare(b.time))
      .slice(-EVENTS_SHOWN)
  );
}

async function explainCommand(s: Session, inv: Invocation, io: PluginIo): Promise<number> {
  const rr = await s.client.resource(RESIZE_REQUESTS).get({ namespace: s.namespace, name: inv.name });
  const groupName = rr.spec.instanceGroupManager;
  const group = await s.client
    .resource(INSTANCE_GROUP_MANAGERS)
    .get({ namespace: s.namespace, name: groupName })
    .catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
  const q = await groupQueue(s, groupName, group);
  const explained = {
    request: rr,
    insight: q.requests.find((r) => r.name === inv.name),
    queueLength: q.queueLength,
    events: await eventsOf(s, rr),
  };
  if (inv.output === "json" || inv.output === "yaml")
    io.stdout(serialize(explainDocument(explained), inv.output));
  else io.stdout(explainText(explained, Date.now()));
  return 0;
}

async function cancelCommand(s: Session, inv: Invocation, io: PluginIo): Promise<number> {
  const rr = await s.client
    .resource(RESIZE_REQUESTS)
    .mergePatch({ namespace: s.namespace, name: inv.name }, { spec: { cancel: true } });
  if (inv.output === "json" || inv.output === "yaml") io.stdout(serialize(rr, inv.output));
  else io.stdout(`${RR_KIND}/${inv.name} cancel requested\n`);
  return 0;
}

const WANTED: Readonly<Record<WaitFor, readonly string[]>> = {
  succeeded: ["SUCCEEDED"],
  failed: ["FAILED"],
  cancelled: ["CANCELLED"],
  final: ["SUCCEEDED", "FAILED", "CANCELLED"],
};

/** Why waiting is over: met, or not met with the message of a request that can never get there. */
type Verdict = { readonly met: true } | { readonly met: false; readonly message: string };

function verdict(rr: ResizeRequest, wanted: WaitFor): Verdict | undefined {
  const state = rr.status?.state;
  if (state !== undefined && WANTED[wanted].includes(state)) return { met: true };
  if (!isFinalState(state)) return undefined;
  const why = rr.status?.error?.errors[0]?.message ?? rr.status?.reason ?? "";
  const message = `${RR_KIND}/${rr.metadata.name ?? ""} reached ${state ?? ""}${why ? ` (${why})` : ""}, a final state: it will never be ${wanted}`;
  return { met: false, message };
}

async function waitCommand(s: Session, inv: Invocation, io: PluginIo): Promise<number> {
  const rrs = s.client.resource(RESIZE_REQUESTS);
  const first = await rrs.get({ namespace: s.namespace, name: inv.name });
  const done = (rr: ResizeRequest, v: Verdict): number => {
    if (!v.met) {
      io.stderr(`error: ${v.message}\n`);
      return 1;
    }
    if (inv.output === "json" || inv.output === "yaml") io.stdout(serialize(rr, inv.output));
    else io.stdout(`${RR_KIND}/${inv.name} condition met\n`);
    return 0;
  };
  const initial = verdict(first, inv.waitFor);
  if (initial !== undefined) return done(first, initial);

  const abort = new AbortController();
  const timer = realClock.setTimer(() => {
    abort.abort();
  }, inv.timeoutMs);
  const watch = httpListWatch(s.http, resourcePath(RESIZE_REQUESTS, { namespace: s.namespace }), {
    fieldSelector: `metadata.name=${inv.name}`,
  });
  let resourceVersion = first.metadata.resourceVersion ?? "";
  let result: { rr: ResizeRequest; verdict: Verdict } | "deleted" | undefined;
  const settle = (value: NonNullable<typeof result>): void => {
    result = value;
    abort.abort();
  };
  const observe = (rr: ResizeRequest): void => {
    resourceVersion = rr.metadata.resourceVersion ?? resourceVersion;
    const v = verdict(rr, inv.waitFor);
    if (v !== undefined) settle({ rr, verdict: v });
  };
  // A function, not the property: the compiler would take the loop's test as still holding.
  const stopped = (): boolean => abort.signal.aborted;
  try {
    while (!stopped()) {
      try {
        await watch.watch({ resourceVersion, timeoutSeconds: 60, signal: abort.signal }, (event) => {
          if (event.type === "DELETED") settle("deleted");
          else if (event.type === "ADDED" || event.type === "MODIFIED")
            observe(RESIZE_REQUESTS.schema.parse(event.object));
        });
      } catch (err) {
        if (stopped()) break;
        // The resourceVersion expired (etcd compacted it): read the request again and watch from
        // there, as kubectl wait relists, instead of failing a wait that may have minutes to go.
        if (!isGone(err)) throw err;
        const current = await rrs.get({ namespace: s.namespace, name: inv.name }).catch((e: unknown) => {
          if (isNotFound(e)) return undefined;
          throw e;
        });
        if (current === undefined) settle("deleted");
        else observe(current);
      }
    }
  } finally {
    timer.cancel();
  }
  if (result === "deleted") {
    io.stderr(`error: ${RR_KIND}/${inv.name} was deleted while waiting for it to be ${inv.waitFor}\n`);
    return 1;
  }
  if (result !== undefined) return done(result.rr, result.verdict);
  io.stderr(`error: timed out waiting for the condition on ${RESIZE_REQUEST.plural}/${inv.name}\n`);
  return 1;
}

/**
 * advise: every group of the namespace (or the one named), its capacity ahead from its requests and
 * bookings as the booking controller reads them, and the earliest window that fits, best first.
 */
async function adviseCommand(s: Session, inv: Invocation, io: PluginIo): Promise<number> {
  if (!inv.advice) throw new UsageError("advise needs --count and --duration", "advise");
  const now = Date.now();
  const q = adviceQuery(inv.advice, now);
  const at = { namespace: s.namespace };
  const [groups, requests, bookings] = await Promise.all([
    inv.name === ""
      ? s.client
          .resource(INSTANCE_GROUP_MANAGERS)
          .list(at)
          .then((l) => l.items)
      : s.client
          .resource(INSTANCE_GROUP_MANAGERS)
          .get({ ...at, name: inv.name })
          .then((g) => [g]),
    s.client.resource(RESIZE_REQUESTS).list(at),
    s.client.resource(FUTURE_RESERVATIONS).list(at),
  ]);
  const capacities = groups.flatMap((g): GroupCapacity[] => {
    const name = g.metadata.name ?? "";
    const of = <T extends { spec: { instanceGroupManager: string } }>(items: readonly T[]): T[] =>
      items.filter((x) => x.spec.instanceGroupManager === name);
    const schedule = groupSchedule(g, of(requests.items), of(bookings.items), now);
    return schedule ? [{ group: name, schedule }] : [];
  });
  const recommendations = advise(capacities, q);
  if (inv.output === "json" || inv.output === "yaml")
    io.stdout(serialize(adviceDocument(s.namespace, q, recommendations), inv.output));
  else if (recommendations.length === 0)
    io.stderr(
      `No group in ${s.namespace} namespace has room for ${q.count} more instances for ${inv.advice.minDurationMs / 1000}s starting in the range asked.\n`,
    );
  else io.stdout(adviceTable(recommendations));
  return 0;
}

const COMMAND_RUNNERS = {
  queue: queueCommand,
  explain: explainCommand,
  cancel: cancelCommand,
  wait: waitCommand,
  advise: adviseCommand,
} as const;

/** Runs `kubectl resize` with `argv` (the words after `kubectl resize`); resolves with the exit code. */
export async function runPlugin(argv: readonly string[], io: PluginIo): Promise<number> {
  try {
    const parsed = parseArgs(argv);
    if (parsed.kind === "help") {
      io.stdout(HELP[parsed.command ?? "root"]);
      return 0;
    }
    const inv = parsed.invocation;
    return await COMMAND_RUNNERS[inv.command](connect(inv), inv, io);
  } catch (err) {
    io.stderr(`${errorLine(err)}\n`);
    if (err instanceof UsageError) {
      io.stderr(
        `See 'kubectl resize ${err.command === undefined ? "" : `${err.command} `}--help' for usage.\n`,
      );
    }
    return 1;
  }
}

/** kubectl's spelling of a failure: `Error from server (Reason): message` for the API server's. */
export function errorLine(err: unknown): string {
  if (err instanceof ApiError)
    return `Error from server${err.reason ? ` (${err.reason})` : ""}: ${err.message}`;
  // Not `instanceof Error`: errors of Node's fs, thrown in another realm under a VM, are not.
  const message =
    typeof err === "object" && err !== null && "message" in err && typeof err.message === "string"
      ? err.message
      : String(err);
  return `error: ${message}`;
}
