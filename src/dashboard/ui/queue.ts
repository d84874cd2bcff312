// The queue insight on the pages: the group's queue table (position, waiting since, what each request
// waits for, ETA) and a request's queue card. The server derives the insight on read (GET
// /groups/:ns/:name/queue); the pages fetch it again when the live stream says the group or one of its
// requests changed, and every REFRESH_MS so that relative times ("in 3m") and estimates follow the clock.
import type { QueueAnswer } from "../answers.js";
import type { Eta, RequestInsight } from "../../queue/insight.js";
import { durationText, etaBasisText, relativeTime, waitingForSentence } from "../../queue/text.js";
import { api } from "./client.js";
import { h, updateKeyed } from "./dom.js";

export const REFRESH_MS = 30_000;

export const fmtMs = (ms: number): string => new Date(ms).toLocaleString();
const clock = (ms: number): string => new Date(ms).toLocaleTimeString();

export const fetchQueue = (namespace: string, group: string): Promise<QueueAnswer> =>
  api<QueueAnswer>(`/groups/${namespace}/${group}/queue`);

/** The ETA: local time, relative time and basis; an unknown one says why. */
export function etaView(eta: Eta, now: number, { long = false } = {}): HTMLElement {
  if (eta.basis === "unknown")
    return h(
      "span",
      { class: "eta", "data-basis": "unknown", title: etaBasisText(eta) },
      h("span", { class: "basis unknown" }, "unknown"),
      long && h("span", { class: "muted" }, ` ${eta.reason}`),
    );
  return h(
    "span",
    { class: "eta", "data-basis": eta.basis, title: etaBasisText(eta) },
    h("time", { datetime: new Date(eta.time).toISOString() }, long ? fmtMs(eta.time) : clock(eta.time)),
    ` (${relativeTime(eta.time, now)}) `,
    h("span", { class: `basis ${eta.basis}` }, eta.basis),
  );
}

function queueRow(namespace: string, q: RequestInsight, now: number): HTMLElement {
  return h(
    "tr",
    { "data-queue": `${namespace}/${q.name}` },
    h("td", null, String(q.position)),
    h("td", null, h("a", { href: `#/requests/${namespace}/${q.name}` }, q.name)),
    h("td", null, String(q.size)),
    h("td", { class: "hide-sm" }, relativeTime(q.waitingSince, now)),
    h("td", { class: "hide-sm", "data-field": "waitingFor" }, waitingForSentence(q.waitingFor, clock)),
    h("td", { "data-field": "eta" }, etaView(q.eta, now)),
  );
}

/** The group's queue as a table, kept current by `refresh`. */
export function queueTable(namespace: string, group: string, first: QueueAnswer) {
  const caption = h("caption", null);
  const body = h("tbody", null);
  const element = h(
    "div",
    { class: "table" },
    h(
      "table",
      { "aria-label": `Queue of ${group}` },
      caption,
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          ["#", "Request", "Size", "Waiting since", "Waiting for", "ETA"].map((t, i) =>
            h("th", { scope: "col", class: i === 3 || i === 4 ? "hide-sm" : null }, t),
          ),
        ),
      ),
      body,
    ),
  );
  const show = (q: QueueAnswer): void => {
    updateKeyed(body, q.requests, {
      key: (r) => r.name,
      version: (r) => JSON.stringify([r, q.now]),
      render: (r) => queueRow(namespace, r, q.now),
    });
    const history = q.history
      ? `; attempts take ${durationText(q.history.attemptDurationMs)}, ${Math.round(q.history.successRate * 100)}% succeed (last ${q.history.samples})`
      : "";
    caption.textContent =
      q.requests.length === 0 ? "The queue is empty." : `${q.requests.length} in the queue${history}`;
  };
  show(first);
  return { element, show, refresh: () => fetchQueue(namespace, group).then(show) };
}

/** A request's place in its group's queue; `null` when it is not in the queue. */
export function queueFacts(name: string, q: QueueAnswer): readonly [string, Node | string][] | null {
  const own = q.requests.find((r) => r.name === name);
  if (!own) return null;
  return [
    ["Queue position", `${own.position} of ${q.queueLength}`],
    ["Waiting for", h("span", { "data-field": "waitingFor" }, waitingForSentence(own.waitingFor, fmtMs))],
    ["ETA", h("span", { "data-field": "eta" }, etaView(own.eta, q.now, { long: true }))],
  ];
}

/** Calls `tick` every REFRESH_MS while `element` is on the page. */
export function whileShown(element: Element, tick: () => Promise<unknown>): void {
  const timer = window.setInterval(() => {
    if (!element.isConnected) window.clearInterval(timer);
    // A failed refresh keeps what is shown; the next one tries again.
    else tick().catch(() => undefined);
  }, REFRESH_MS);
}
