// The pages, one function each: a page is its content plus, for the live ones, an update that applies
// the live stream's changes to the rows they touch. Request detail reloads when its request changes.
import type { CapacityAnswer, ItemsAnswer, RequestDetailAnswer } from "../answers.js";
import type { Operation } from "../../api/operation.js";
import type { Attrs, Child } from "./dom.js";
import { api } from "./client.js";
import { chart } from "./chart.js";
import { h, updateKeyed } from "./dom.js";
import { fmtTime, keyOf, num } from "./format.js";
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

export async function groupPage(namespace: string, name: string): Promise<Page> {
  const key = `${namespace}/${name}`;
  const capacity = await api<CapacityAnswer>(`/groups/${namespace}/${name}/capacity`);
  let card = groupCard(store.groups.get(key) ?? capacity.group);
  const chartSection = h(
    "section",
    { class: "card", "aria-label": "Capacity over time" },
    h("h2", null, "Capacity over time"),
    chart(capacity.points, Date.now()),
  );
  const table = requestsTable(
    (r) => r.namespace === namespace && r.group === name,
    (count) => `${count} request(s)`,
  );
  /** A new point is recorded whenever the group changes: fetch the history again. */
  const redrawChart = async () => {
    const { points } = await api<CapacityAnswer>(`/groups/${namespace}/${name}/capacity`);
    chartSection.lastElementChild?.replaceWith(chart(points, Date.now()));
  };
  return {
    content: [
      h("h1", null, `Group ${name}`),
      h("div", { class: "grid2" }, card, chartSection),
      h("h2", null, "Requests"),
      table.element,
    ],
    update: (changes) => {
      const group = store.groups.get(key);
      if (changes.groups.has(key) && group) {
        const fresh = groupCard(group);
        card.replaceWith(fresh);
        card = fresh;
        // The chart is not essential: a failed refresh keeps the previous one.
        redrawChart().catch(() => undefined);
      }
      if (changes.requests.size > 0) table.update(changes.requests);
      return undefined;
    },
  };
}

const kv = (...pairs: readonly [string, Child, Attrs?][]): HTMLElement =>
  h(
    "dl",
    { class: "kv" },
    pairs.map(([term, value, attrs]) => [h("dt", null, term), h("dd", attrs ?? null, value)]),
  );

const errorsText = (errors: readonly { code: string; message?: string | undefined }[]): string =>
  errors.map((e) => `${e.code}: ${e.message ?? ""}`).join("; ") || "—";

export async function requestPage(namespace: string, name: string): Promise<Page> {
  const d = await api<RequestDetailAnswer>(`/requests/${namespace}/${name}`);
  const r = d.request;
  const a = d.attempts;
  return {
    content: [
      h("h1", null, `Request ${r.name}`),
      h(
        "div",
        { class: "grid2" },
        h(
          "section",
          { class: "card", "aria-label": "Summary" },
          kv(
            ["State", stateBadge(r.state), { "data-field": "state" }],
            ["Reason", r.reason ?? "—"],
            ["Group", h("a", { href: `#/groups/${r.namespace}/${r.group}` }, `${r.namespace}/${r.group}`)],
            ["Location", r.location ?? "—", { "data-field": "location" }],
            ["Size", String(r.size)],
            ["Queue position", num(store.queuePosition(r))],
            ["Run until", fmtTime(r.runUntil)],
            ["Created", fmtTime(r.created)],
            ["Description", r.description ?? "—"],
          ),
          h("div", { class: "actions" }, cancelButton(r)),
        ),
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
      const own = keyOf(r);
      // Its state, or its queue position (another request of its group came or went).
      const touched = [...changes.requests].some(
        (k) =>
          k === own ||
          (r.queued && store.requests.get(k)?.group === r.group && k.startsWith(`${r.namespace}/`)),
      );
      return touched ? "reload" : undefined;
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
