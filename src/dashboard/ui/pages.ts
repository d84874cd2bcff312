// The pages, one function each: a page is its content plus, for the live ones, an update that applies
// the live stream's changes to the rows they touch. Request detail reloads when its request changes;
// the queue (group page) and a request's queue facts are fetched again when its group or requests change.
import { instancesLine } from "../../api/instance-list.js";
import type { CapacityAnswer, ItemsAnswer, QueueAnswer, RequestDetailAnswer } from "../answers.js";
import { isFinalState } from "../../api/lifecycle.js";
import type { Operation } from "../../api/operation.js";
import type { Attrs, Child } from "./dom.js";
import { bookingsTimeline } from "./bookings.js";
import { api } from "./client.js";
import { chart } from "./chart.js";
import { h, updateKeyed } from "./dom.js";
import { fetchQueue, queueFacts, queueTable, whileShown } from "./queue.js";
import { fmtTime, keyOf } from "./format.js";
import { store, type Changes } from "./store.js";
import {
  GROUP_CARDS,
  cancelButton,
  eventsTable,
  groupCard,
  operationsTable,
  requestsTable,
  stateBadge,
} from "./widgets.js";

export interface Page {
  readonly content: readonly Node[];
  /** Applies live changes; "reload" asks for the page to be built again (its data is fetched). */
  update?(changes: Changes): "reload" | undefined;
}

const byKey = <T extends { namespace: string; name: string }>(a: T, b: T) => keyOf(a).localeCompare(keyOf(b));

export function groupsPage(): Page {
  const empty = h("p", { class: "muted" }, "No groups you can see.");
  const cards = h("section", { class: "cards", "aria-label": "Groups" });
  const update = () => {
    const groups = [...store.groups.values()].sort(byKey);
    updateKeyed(cards, groups, GROUP_CARDS);
    empty.hidden = groups.length > 0;
    cards.hidden = groups.length === 0;
  };
  update();
  return {
    content: [h("h1", null, "Instance groups"), empty, cards],
    update: (changes) => {
      if (changes.groups.size > 0) update();
      return undefined;
    },
  };
}

export function requestsPage(params: URLSearchParams): Page {
  const group = params.get("group");
  const table = requestsTable(
    (r) => !group || `${r.namespace}/${r.group}` === group,
    (count) => `${count} request(s), newest first; updates live`,
  );
  return {
    content: [h("h1", null, group ? `Requests of ${group}` : "Resize requests"), table.element],
    update: (changes) => {
      if (changes.requests.size > 0) table.update(changes.requests);
      return undefined;
    },
  };
}

/** The queue, or what kept it from being read (a user may see the group but not list its requests). */
const queueOrError = (namespace: string, group: string): Promise<QueueAnswer | Error> =>
  fetchQueue(namespace, group).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));

/** Whether a change of the stream touches the queue of `namespace/group` (the group or any request of it). */
const touchesQueue = (changes: Changes, namespace: string, group: string): boolean =>
  changes.groups.has(`${namespace}/${group}`) ||
  [...changes.requests].some((k) => {
    const r = store.requests.get(k);
    // A deleted request is gone from the store: any change in the namespace may have been of this group.
    return k.startsWith(`${namespace}/`) && (r === undefined || r.group === group);
  });

export async function groupPage(namespace: string, name: string): Promise<Page> {
  const key = `${namespace}/${name}`;
  const [capacity, queue] = await Promise.all([
    api<CapacityAnswer>(`/groups/${namespace}/${name}/capacity`),
    queueOrError(namespace, name),
  ]);
  let card = groupCard(store.groups.get(key) ?? capacity.group);
  const forecastOf = (q: QueueAnswer | Error) =>
    q instanceof Error ? undefined : { queue: q, minSize: store.groups.get(key)?.min ?? capacity.group.min };
  const chartSection = h(
    "section",
    { class: "card", "aria-label": "Capacity over time" },
    h("h2", null, "Capacity over time and forecast"),
    chart(capacity.points, Date.now(), forecastOf(queue)),
  );
  const queueSection =
    queue instanceof Error
      ? {
          element: h("p", { class: "muted" }, `The queue is not available: ${queue.message}`),
          show: undefined,
        }
      : queueTable(namespace, name, queue);
  const table = requestsTable(
    (r) => r.namespace === namespace && r.group === name,
    (count) => `${count} request(s)`,
  );
  /** The history gains a point whenever the group changes, the queue whenever anything of it does. */
  const redraw = async () => {
    const [{ points }, q] = await Promise.all([
      api<CapacityAnswer>(`/groups/${namespace}/${name}/capacity`),
      queueOrError(namespace, name),
    ]);
    if (!(q instanceof Error)) queueSection.show?.(q);
    chartSection.lastElementChild?.replaceWith(chart(points, Date.now(), forecastOf(q)));
  };
  whileShown(chartSection, redraw);
  const bookings = bookingsTimeline(namespace, name);
  // A window ending drops its booking by the clock too (a declined or cancelled one has no Ended).
  whileShown(bookings.element, () => {
    bookings.update();
    return Promise.resolve();
  });
  return {
    content: [
      h("h1", null, `Group ${name}`),
      h("div", { class: "grid2" }, card, chartSection),
      h("h2", null, "Bookings"),
      bookings.element,
      h("h2", null, "Queue"),
      queueSection.element,
      h("h2", null, "Requests"),
      table.element,
    ],
    update: (changes) => {
      const group = store.groups.get(key);
      if (changes.groups.has(key) && group) {
        const fresh = groupCard(group);
        card.replaceWith(fresh);
        card = fresh;
      }
      // The chart and the queue are not essential: a failed refresh keeps the previous ones.
      if (touchesQueue(changes, namespace, name)) redraw().catch(() => undefined);
      if (changes.requests.size > 0) table.update(changes.requests);
      // A request change may be a booking's delivery request appearing: its row then links it.
      if (changes.bookings.size > 0 || changes.requests.size > 0) bookings.update();
      return undefined;
    },
  };
}

const kvList = (className: string, pairs: readonly (readonly [string, Child, Attrs?])[]): HTMLElement =>
  h(
    "dl",
    { class: className },
    pairs.map(([term, value, attrs]) => [h("dt", null, term), h("dd", attrs ?? null, value)]),
  );
const kv = (...pairs: readonly [string, Child, Attrs?][]): HTMLElement => kvList("kv", pairs);
/** Lists of the request summary, whose columns line up with each other. */
const aligned = (...pairs: readonly [string, Child, Attrs?][]): HTMLElement => kvList("kv aligned", pairs);

const errorsText = (errors: readonly { code: string; message?: string | undefined }[]): string =>
  errors.map((e) => `${e.code}: ${e.message ?? ""}`).join("; ") || "—";

export async function requestPage(namespace: string, name: string): Promise<Page> {
  const d = await api<RequestDetailAnswer>(`/requests/${namespace}/${name}`);
  const r = d.request;
  const a = d.attempts;
  const waiting = !isFinalState(r.state);
  /** Position, what it waits for and its ETA, from the queue model on the server. */
  const queueCard = (q: QueueAnswer | Error): HTMLElement => {
    if (q instanceof Error) return aligned(["Queue", `not available: ${q.message}`]);
    const facts = queueFacts(r.name, q);
    // Not final yet out of the queue: cancelled or deleted, it leaves at the controller's next pass.
    return facts ? aligned(...facts) : aligned(["Queue position", "— (leaving the queue)"]);
  };
  let queueFactsEl = waiting
    ? queueCard(await queueOrError(namespace, r.group))
    : aligned(["Queue position", "— (finished)"]);
  const refreshQueue = async () => {
    const fresh = queueCard(await queueOrError(namespace, r.group));
    queueFactsEl.replaceWith(fresh);
    queueFactsEl = fresh;
  };
  const summary = h(
    "section",
    { class: "card", "aria-label": "Summary" },
    aligned(
      ["State", stateBadge(r.state), { "data-field": "state" }],
      ["Reason", r.reason ?? "—"],
      ["Group", h("a", { href: `#/groups/${r.namespace}/${r.group}` }, `${r.namespace}/${r.group}`)],
      ["Location", r.location ?? "—", { "data-field": "location" }],
      ["Size", String(r.size)],
      [
        "Serves",
        d.servedBy.provisioningRequest ? `ProvisioningRequest ${d.servedBy.provisioningRequest}` : "—",
        { "data-field": "serves" },
      ],
      ["Workload", d.servedBy.workload ?? "—", { "data-field": "workload" }],
    ),
    queueFactsEl,
    aligned(
      ["Run until", fmtTime(r.runUntil)],
      ["Instances", instancesLine(r.instances, r.instancesTruncated) ?? "—", { "data-field": "instances" }],
      ["Created", fmtTime(r.created)],
      ["Description", r.description ?? "—"],
    ),
    h("div", { class: "actions" }, cancelButton(r)),
  );
  if (waiting) whileShown(summary, refreshQueue);
  return {
    content: [
      h("h1", null, `Request ${r.name}`),
      h(
        "div",
        { class: "grid2" },
        summary,
        h(
          "section",
          { class: "card", "aria-label": "Timeline" },
          h("h2", null, "Timeline"),
          h(
            "ol",
            { class: "timeline" },
            d.timeline.map((t) =>
              h(
                "li",
                null,
                h("time", { datetime: t.time }, fmtTime(t.time)),
                h("strong", null, t.title),
                t.detail && h("div", { class: "muted" }, t.detail),
              ),
            ),
          ),
        ),
      ),
      h("h2", null, "Attempts"),
      h(
        "div",
        { class: "card" },
        kv(
          ["Attempts started", String(a.count)],
          [
            "Current",
            a.current
              ? `#${a.current.attempt} ${a.current.phase}: ${a.current.baseReplicas} → ${a.current.targetReplicas}`
              : "—",
          ],
          ["Next attempt", fmtTime(a.nextAttemptTime)],
          ["Last attempt error", errorsText(a.lastError)],
          ["Error", errorsText(a.error)],
        ),
      ),
      h("h2", null, "Events"),
      eventsTable(() => d.events, "Events of this request, oldest first").element,
      h("h2", null, "Operations"),
      operationsTable(d.operations),
    ],
    update: (changes) => {
      // Its own change rebuilds the page; one of its group's (the queue moved) refreshes its queue facts.
      if (changes.requests.has(keyOf(r))) return "reload";
      if (waiting && touchesQueue(changes, namespace, r.group)) refreshQueue().catch(() => undefined);
      return undefined;
    },
  };
}

export async function operationsPage(): Promise<Page> {
  const { items } = await api<ItemsAnswer<Operation>>("/operations");
  return { content: [h("h1", null, "Operations"), operationsTable(items)] };
}

export function eventsPage(): Page {
  const table = eventsTable(() => store.events.slice(0, 200), "Newest first; updates live");
  return {
    content: [h("h1", null, "Events"), table.element],
    update: (changes) => {
      if (changes.events) table.update();
      return undefined;
    },
  };
}
