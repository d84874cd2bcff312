// What `kubectl resize` prints, as pure functions of the queue model's answer: kubectl-style tables
// (upper-case headers, columns padded by three spaces), ages as kubectl shows them, and the documents
// of `-o json|yaml` (times as RFC 3339, as everywhere in the Kubernetes API).
import { instancesLine } from "../api/instance-list.js";
import { servedBy } from "../api/served-by.js";
import { stringify } from "yaml";
import { isFinalState } from "../api/lifecycle.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { rfc3339, rfc3339Seconds } from "../api/time.js";
import type { AdviceQuery, Recommendation } from "../booking/advice.js";
import type { EventSummary } from "../events/view.js";
import type { Eta, QueueInsight, RequestInsight } from "../queue/insight.js";
import { waitingForSentence, waitingForShort } from "../queue/text.js";

/** A duration as kubectl prints ages (k8s.io/apimachinery duration.HumanDuration). */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(s / 60);
  const h = Math.floor(m / 60);
  if (s < 120) return `${s}s`;
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (h < 3) return `${m}m`;
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

/** An ETA in one cell: the time and its basis, or why it is unknown. */
export function etaCell(eta: Eta): string {
  return eta.basis === "unknown" ? "unknown" : `${rfc3339Seconds(eta.time)} (${eta.basis})`;
}

/** An ETA in a sentence, relative to now. */
export function etaText(eta: Eta, now: number): string {
  if (eta.basis === "unknown") return `unknown: ${eta.reason}`;
  const when = eta.time <= now ? "now" : `in ${humanDuration(eta.time - now)}`;
  return `${rfc3339Seconds(eta.time)} (${when}; ${eta.basis}, attempt expected to start at ${rfc3339Seconds(eta.start)})`;
}

/**
 * Text from the cluster (Event notes, condition messages, names) as a terminal shows it and nothing
 * more: control characters (escape sequences, carriage returns, newlines that would forge lines) and
 * Unicode's bidirectional overrides are written as `\xNN` / `\uNNNN` escapes.
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is this function's job
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, "0")}`
      : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** Columns padded as kubectl's tab writer does (three spaces between columns); every cell printable. */
export function table(cells: readonly (readonly string[])[]): string {
  const rows = cells.map((row) => row.map(printable));
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd((widths[i] ?? 0) + 3)))
        .join("")
        .trimEnd(),
    )
    .join("\n")
    .concat("\n");
}

export function queueTable(q: QueueInsight, now: number, wide: boolean): string {
  const header = ["POSITION", "REQUEST", "SIZE", "WAITING SINCE", "ETA"];
  const rows = q.requests.map((r) => {
    const cells = [
      String(r.position),
      r.name,
      String(r.size),
      humanDuration(now - r.waitingSince),
      etaCell(r.eta),
    ];
    if (!wide) return cells;
    return [
      ...cells,
      r.state,
      r.eta.basis === "unknown" ? "<none>" : rfc3339Seconds(r.eta.start),
      waitingForShort(r.waitingFor, rfc3339Seconds),
      r.eta.basis === "unknown" ? r.eta.reason : "",
    ];
  });
  return table([wide ? [...header, "STATE", "START", "WAITING FOR", "REASON"] : header, ...rows]);
}

/** The queue as a document for -o json|yaml. */
export function queueDocument(namespace: string, group: string, q: QueueInsight, now: number): object {
  return {
    group,
    namespace,
    time: rfc3339(now),
    queueLength: q.queueLength,
    ...(q.history && {
      recentAttempts: {
        samples: q.history.samples,
        attemptDurationSeconds: q.history.attemptDurationMs / 1000,
        successRate: q.history.successRate,
      },
    }),
    requests: q.requests.map(requestDocument),
  };
}

function requestDocument(r: RequestInsight): object {
  const eta =
    r.eta.basis === "unknown"
      ? r.eta
      : { basis: r.eta.basis, time: rfc3339(r.eta.time), start: rfc3339(r.eta.start) };
  const w = r.waitingFor;
  const waitingFor = {
    ...w,
    ...("until" in w && w.until !== undefined && { until: rfc3339(w.until) }),
    ...("startedTime" in w && { startedTime: rfc3339(w.startedTime) }),
  };
  return {
    ...r,
    waitingSince: rfc3339(r.waitingSince),
    waitingFor,
    eta,
    queueDeadline: r.queueDeadline === undefined ? null : rfc3339(r.queueDeadline),
  };
}

/** advise's answer: one row per group with room, best first (the window as a booking would give it). */
export function adviceTable(recommendations: readonly Recommendation[]): string {
  return table([
    ["GROUP", "START", "END", "DURATION"],
    ...recommendations.map((r) => [
      r.group,
      rfc3339Seconds(r.start),
      rfc3339Seconds(r.end),
      humanDuration(r.end - r.start),
    ]),
  ]);
}

/** advise's answer for -o json|yaml: what was asked, and each window with its length in seconds. */
export function adviceDocument(
  namespace: string,
  q: AdviceQuery,
  recommendations: readonly Recommendation[],
): object {
  return {
    namespace,
    count: q.count,
    minDurationSeconds: q.minDurationMs / 1000,
    maxDurationSeconds: q.maxDurationMs / 1000,
    startNotEarlierThan: rfc3339(q.notEarlierThan),
    startNotLaterThan: rfc3339(q.notLaterThan),
    recommendations: recommendations.map((r) => ({
      group: r.group,
      startTime: rfc3339(r.start),
      endTime: rfc3339(r.end),
      durationSeconds: (r.end - r.start) / 1000,
    })),
  };
}

export interface Explained {
  readonly request: ResizeRequest;
  readonly insight: RequestInsight | undefined;
  readonly queueLength: number;
  readonly events: readonly EventSummary[];
}

export function explainDocument(e: Explained): object {
  const s = e.request.status;
  return {
    name: e.request.metadata.name,
    namespace: e.request.metadata.namespace,
    group: e.request.spec.instanceGroupManager,
    state: s?.state ?? "CREATING",
    ...(s?.reason !== undefined && { reason: s.reason }),
    ...servedBy(e.request.metadata.annotations),
    ...(e.insight && { queue: { ...requestDocument(e.insight), queueLength: e.queueLength } }),
    ...(s?.lastAttempt?.error && { lastAttemptError: s.lastAttempt.error }),
    ...(s?.error && { error: s.error }),
    events: e.events.map((ev) => ({
      type: ev.type,
      reason: ev.reason,
      note: ev.note,
      time: ev.time,
      count: ev.count,
    })),
  };
}

export function explainText(e: Explained, now: number): string {
  const r = e.request;
  const s = r.status;
  const size = r.spec.resizeBy ?? r.spec.instances?.length ?? 0;
  const lines = [
    `Name:           ${r.metadata.name ?? ""}`,
    `Namespace:      ${r.metadata.namespace ?? ""}`,
    `Group:          ${r.spec.instanceGroupManager}`,
    `Size:           ${size}`,
    `State:          ${s?.state ?? "CREATING"}${s?.reason === undefined ? "" : ` (${s.reason})`}`,
  ];
  const served = servedBy(r.metadata.annotations);
  if (served.provisioningRequest)
    lines.push(`Serves:         ProvisioningRequest ${served.provisioningRequest}`);
  if (served.workload) lines.push(`Workload:       ${served.workload} (Kueue)`);
  if (e.insight) {
    lines.push(
      `Position:       ${e.insight.position} of ${e.queueLength}`,
      `Waiting since:  ${rfc3339Seconds(e.insight.waitingSince)} (${humanDuration(now - e.insight.waitingSince)})`,
      `Waiting for:    ${waitingForSentence(e.insight.waitingFor, rfc3339Seconds)}`,
      `ETA:            ${etaText(e.insight.eta, now)}`,
    );
    const deadline = e.insight.queueDeadline;
    if (deadline !== undefined)
      lines.push(
        `Queue deadline: ${rfc3339Seconds(deadline)}${e.insight.missesDeadline ? " (before the expected start: it will fail then unless the queue moves faster)" : ""}`,
      );
  } else if (isFinalState(s?.state)) {
    lines.push("Position:       not in the queue (final state)");
  }
  if (s?.runUntil !== undefined) lines.push(`Run until:      ${s.runUntil}`);
  const instances = instancesLine(s?.instances, s?.instancesTruncated);
  if (instances !== undefined) lines.push(`Instances:      ${instances}`);
  const attemptErrors = s?.lastAttempt?.error?.errors ?? [];
  if (attemptErrors.length > 0) {
    lines.push("Last attempt:", ...attemptErrors.map((x) => `  ${x.code}: ${x.message ?? ""}`));
  }
  for (const x of s?.error?.errors ?? []) lines.push(`Error:          ${x.code}: ${x.message ?? ""}`);
  lines.push("Events:");
  if (e.events.length === 0) lines.push("  <none>");
  else {
    const rows = e.events.map((ev) => [
      ev.type,
      ev.reason,
      `${humanDuration(now - Date.parse(ev.time))}${ev.count > 1 ? ` (x${ev.count})` : ""}`,
      ev.note,
    ]);
    lines.push(
      ...table([["TYPE", "REASON", "AGE", "MESSAGE"], ...rows])
        .trimEnd()
        .split("\n")
        .map((l) => `  ${l}`),
    );
  }
  return `${lines.map(printable).join("\n")}\n`;
}

/** -o json|yaml of any document. */
export function serialize(doc: object, output: "json" | "yaml"): string {
  return output === "json" ? `${JSON.stringify(doc, null, 2)}\n` : stringify(doc);
}
