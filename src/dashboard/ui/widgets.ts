// The building blocks of the pages: group cards, and the request, event and operation tables. The live
// ones (cards, request and event tables) come with an update that changes only the rows that changed.
import { isFinalState } from "../../api/lifecycle.js";
import type { Operation } from "../../api/operation.js";
import type { EventSummary } from "../../events/view.js";
import { byNewest, type GroupSummary, type RequestSummary } from "../views.js";
import { cancel, openCreate } from "./actions.js";
import { h, updateKeyed, type KeyedList } from "./dom.js";
import { fmtTime, keyOf, num } from "./format.js";
import { store } from "./store.js";

/** A table whose rows follow the store: `update` re-renders the rows that changed. */
export interface LiveTable {
  readonly element: HTMLElement;
  /** `flash`: keys of rows to highlight if they changed (the ones the live stream just touched). */
  update(flash?: ReadonlySet<string>): void;
}

export function stateBadge(value: string): HTMLElement {
  return h("span", { class: `state ${value}` }, value);
}

export function groupCard(g: GroupSummary): HTMLElement {
  const size = g.targetSize ?? 0;
  const pct = g.max ? Math.min(100, Math.round((size / g.max) * 100)) : 0;
  return h(
    "article",
    { class: "card", "data-group": keyOf(g) },
    h("h2", null, h("a", { href: `#/groups/${g.namespace}/${g.name}` }, g.name)),
    h("div", { class: "muted" }, `${g.namespace} · ${g.zone ?? `region ${g.region ?? ""}`} · ${g.target}`),
    h(
      "div",
      { class: "stats" },
      h("div", null, h("b", { "data-field": "targetSize" }, num(g.targetSize)), h("span", null, "target")),
      h("div", null, h("b", { "data-field": "ready" }, num(g.ready)), h("span", null, "ready")),
      h("div", null, h("b", null, num(g.max)), h("span", null, "max")),
      h("div", null, h("b", { "data-field": "queued" }, num(g.queued)), h("span", null, "queued")),
    ),
    h(
      "div",
      {
        class: "bar",
        role: "meter",
        "aria-label": `capacity used of ${g.name}`,
        "aria-valuemin": 0,
        "aria-valuemax": g.max ?? size,
        "aria-valuenow": size,
      },
      h("i", { style: `width:${pct}%` }),
    ),
    h(
      "div",
      { class: "actions" },
      store.me?.mutations &&
        h(
          "button",
          {
            type: "button",
            onclick: () => {
              openCreate(g);
            },
          },
          "New request",
        ),
      h("a", { class: "button ghost", href: `#/requests?group=${g.namespace}/${g.name}` }, "Requests"),
    ),
  );
}

/** Group cards by key: a card is rebuilt when its group changed. */
export const GROUP_CARDS: KeyedList<GroupSummary> = {
  key: keyOf,
  version: (g) => JSON.stringify(g),
  render: groupCard,
};

export function cancelButton(r: RequestSummary): HTMLElement | null {
  if (!store.me?.mutations || isFinalState(r.state) || r.cancelRequested) return null;
  return h(
    "button",
    {
      type: "button",
      class: "danger",
      "aria-label": `Cancel ${r.name}`,
      onclick: () => void cancel(r),
    },
    "Cancel",
  );
}

function table(
  caption: HTMLElement,
  columns: readonly string[],
  body: HTMLElement,
  hideSm: readonly number[] = [],
) {
  return h(
    "div",
    { class: "table" },
    h(
      "table",
      null,
      caption,
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          columns.map((t, i) => h("th", { scope: "col", class: hideSm.includes(i) ? "hide-sm" : null }, t)),
        ),
      ),
      body,
    ),
  );
}

function requestRow(r: RequestSummary, flash: boolean): HTMLElement {
  return h(
    "tr",
    { "data-request": keyOf(r), class: flash ? "flash" : null },
    h("td", null, h("a", { href: `#/requests/${r.namespace}/${r.name}` }, r.name)),
    h("td", { class: "hide-sm" }, r.namespace),
    h("td", null, r.group),
    h("td", null, String(r.size)),
    h("td", { "data-field": "state" }, stateBadge(r.state)),
    h("td", { class: "hide-sm" }, r.reason ?? ""),
    h("td", { class: "hide-sm" }, num(store.queuePosition(r))),
    h("td", { class: "hide-sm" }, fmtTime(r.runUntil)),
    h("td", null, cancelButton(r)),
  );
}

/** The requests `shown` selects, newest first, with queue positions; rows flash when they change. */
export function requestsTable(
  shown: (r: RequestSummary) => boolean,
  captionOf: (count: number) => string,
): LiveTable {
  const caption = h("caption", null);
  const body = h("tbody", null);
  const element = table(
    caption,
    ["Name", "Namespace", "Group", "Size", "State", "Reason", "Queue", "Run until", ""],
    body,
    [1, 5, 6, 7],
  );
  const update = (flash: ReadonlySet<string> = new Set()) => {
    const rows = [...store.requests.values()].filter(shown).sort(byNewest);
    // A row shows its queue position too, which moves when another request leaves the queue.
    updateKeyed(body, rows, {
      key: keyOf,
      version: (r) => JSON.stringify([r, store.queuePosition(r)]),
      render: (r) => requestRow(r, flash.has(keyOf(r))),
    });
    caption.textContent = captionOf(rows.length);
  };
  update();
  return { element, update };
}

function eventRow(e: EventSummary): HTMLElement {
  return h(
    "tr",
    null,
    h("td", null, fmtTime(e.time)),
    h("td", null, e.type),
    h("td", null, e.reason),
    h("td", null, `${e.namespace}/${e.object}`),
    h("td", { style: "white-space:normal" }, e.note + (e.count > 1 ? ` (×${e.count})` : "")),
  );
}

const EVENT_ROWS: KeyedList<EventSummary> = {
  key: keyOf,
  version: (e) => JSON.stringify(e),
  render: eventRow,
};

/** Events in the order `eventsOf` gives them; `update` follows a new list. */
export function eventsTable(eventsOf: () => readonly EventSummary[], caption: string): LiveTable {
  const body = h("tbody", null);
  const element = table(h("caption", null, caption), ["Time", "Type", "Reason", "Object", "Message"], body);
  const update = () => {
    updateKeyed(body, eventsOf(), EVENT_ROWS);
  };
  update();
  return { element, update };
}

export function operationsTable(ops: readonly Operation[]): HTMLElement {
  return table(
    h("caption", null, `${ops.length} operation(s)`),
    ["Name", "Type", "Target", "Status", "Progress", "User", "Started", "Error"],
    h(
      "tbody",
      null,
      ops.map((o) =>
        h(
          "tr",
          null,
          h("td", null, o.name),
          h("td", null, o.operationType.split(".").pop()),
          h("td", null, o.targetLink.split("/").pop()),
          h("td", null, o.status),
          h("td", null, `${o.progress ?? 0}%`),
          h("td", null, o.user),
          h("td", null, fmtTime(o.insertTime)),
          h("td", null, (o.error?.errors ?? []).map((e) => e.code).join(", ")),
        ),
      ),
    ),
  );
}
