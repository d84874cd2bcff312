// A group's bookings on its timeline: each FutureReservation ahead or in its window as a bar from its
// start to its end (with "now"), and a row per booking with its window, count, procurementStatus, the
// message of a declined one (it names the earliest window that fits) and its delivery request. Kept
// current by the live stream; ended bookings drop off, by the controller's word or by the clock.
import { bookingsOnTimeline, type BookingSummary } from "../booking-timeline.js";
import { h, s, updateKeyed, type KeyedList } from "./dom.js";
import { fmtTime, keyOf } from "./format.js";
import { store } from "./store.js";
import { stateBadge } from "./widgets.js";

const W = 640;
const ROW = 18;
const P = { l: 8, r: 8, t: 6, b: 18 };

/** The delivery request, linked once it exists where the user may see it. */
function deliveryOf(b: BookingSummary): HTMLElement {
  const key = `${b.namespace}/${b.delivery}`;
  return store.requests.has(key)
    ? h("a", { href: `#/requests/${key}` }, b.delivery)
    : h("span", { class: "muted" }, `${b.delivery} (not created)`);
}

function bookingRow(b: BookingSummary, now: number): HTMLElement {
  const inWindow = Date.parse(b.start) <= now;
  return h(
    "li",
    { "data-booking": keyOf(b), class: inWindow ? "in-window" : null },
    h(
      "time",
      { datetime: b.start, "data-field": "window" },
      `${fmtTime(b.start)} → ${fmtTime(b.end)}`,
      inWindow && " (in its window)",
    ),
    h(
      "div",
      null,
      h("strong", null, b.name),
      " · ",
      h("span", { "data-field": "count" }, `${String(b.count)} instance(s)`),
      " ",
      h("span", { "data-field": "status" }, stateBadge(b.status)),
      b.cancelRequested && b.status !== "CANCELLED" && h("span", { class: "muted" }, " cancel requested"),
    ),
    b.status === "DECLINED" && b.message && h("div", { class: "muted", "data-field": "message" }, b.message),
    b.description && h("div", { class: "muted" }, b.description),
    h("div", null, "Delivery: ", h("span", { "data-field": "delivery" }, deliveryOf(b))),
  );
}

/** Bars of the windows on one time axis, from now (or the first start) to the last end. */
function windowsChart(bookings: readonly BookingSummary[], now: number): SVGElement {
  const starts = bookings.map((b) => Date.parse(b.start));
  const ends = bookings.map((b, i) => (b.end === null ? (starts[i] ?? now) : Date.parse(b.end)));
  const t0 = Math.min(now, ...starts);
  const t1 = Math.max(t0 + 1000, ...ends);
  const x = (t: number) => P.l + ((t - t0) / (t1 - t0)) * (W - P.l - P.r);
  const height = P.t + bookings.length * ROW + P.b;
  return s(
    "svg",
    {
      viewBox: `0 0 ${W} ${height}`,
      role: "img",
      "aria-label": `Booking windows: ${bookings.map((b) => `${b.name} ${b.status}`).join(", ")}`,
    },
    bookings.map((b, i) =>
      s(
        "rect",
        {
          class: `window ${b.status}`,
          "data-window": b.name,
          x: x(starts[i] ?? t0),
          y: P.t + i * ROW + 2,
          width: Math.max(2, x(ends[i] ?? t0) - x(starts[i] ?? t0)),
          height: ROW - 4,
          rx: 3,
        },
        s(
          "title",
          null,
          `${b.name}: ${String(b.count)} from ${fmtTime(b.start)} to ${fmtTime(b.end)}, ${b.status}`,
        ),
      ),
    ),
    // Each bar's name: left of it where there is room, otherwise right of it.
    bookings.map((b, i) => {
      const left = x(starts[i] ?? t0) > W / 4;
      return s(
        "text",
        {
          x: left ? x(starts[i] ?? t0) - 4 : x(ends[i] ?? t0) + 4,
          y: P.t + i * ROW + ROW - 5,
          "text-anchor": left ? "end" : "start",
        },
        b.name,
      );
    }),
    s("line", { class: "now", x1: x(now), y1: P.t, x2: x(now), y2: height - P.b }),
    s("text", { x: x(now), y: height - 4, "text-anchor": "start" }, "now"),
    s("text", { x: W - P.r, y: height - 4, "text-anchor": "end" }, new Date(t1).toLocaleString()),
  );
}

export interface BookingsTimeline {
  readonly element: HTMLElement;
  /** Renders the group's bookings as the store has them now; rows that did not change are kept. */
  update(): void;
}

export function bookingsTimeline(namespace: string, group: string): BookingsTimeline {
  const empty = h("p", { class: "muted" }, "No bookings ahead.");
  const figure = h("figure", { class: "chart bookings-chart" });
  const list = h("ol", { class: "timeline bookings", "aria-label": "Bookings, by start" });
  const element = h("section", { class: "card", "aria-label": "Bookings" }, empty, figure, list);
  const update = (): void => {
    const now = Date.now();
    const shown = bookingsOnTimeline(store.bookings.values(), namespace, group, now);
    const rows: KeyedList<BookingSummary> = {
      key: keyOf,
      // The row shows whether its window has begun and whether its delivery request can be linked.
      version: (b) =>
        JSON.stringify([b, Date.parse(b.start) <= now, store.requests.has(`${b.namespace}/${b.delivery}`)]),
      render: (b) => bookingRow(b, now),
    };
    updateKeyed(list, shown, rows);
    figure.replaceChildren(...(shown.length > 0 ? [windowsChart(shown, now)] : []));
    empty.hidden = shown.length > 0;
    figure.hidden = list.hidden = shown.length === 0;
  };
  update();
  return { element, update };
}
