// The capacity chart of a group: target size and ready instances as step lines, max as a dashed line,
// and after "now" the queue as a forecast: the target size the queue model expects (each queued request
// added when its attempt is expected to start, each release taken off when it is due, never below
// minSize), a dot when each queued request is expected to be ready, and a mark where capacity frees.
import type { QueueAnswer } from "../answers.js";
import type { CapacityPoint } from "../views.js";
import { relativeTime } from "../../queue/text.js";
import { h, s } from "./dom.js";
import { num } from "./format.js";

const W = 640;
const H = 220;
const P = { l: 36, r: 10, t: 18, b: 24 };

type Series = "targetSize" | "ready" | "max";

export interface Forecast {
  readonly queue: QueueAnswer;
  readonly minSize: number;
}

interface Step {
  readonly t: number;
  readonly delta: number;
}

/** The target size the queue model expects after `now`: one point per change, starting at `now`. */
export function projectedTarget(start: number, f: Forecast): { t: number; v: number }[] {
  const steps: Step[] = [
    ...f.queue.requests.flatMap((r): Step[] =>
      // A request in an attempt is counted in the target already.
      r.eta.basis === "unknown" || r.waitingFor.kind === "Attempt" ? [] : [{ t: r.eta.start, delta: r.size }],
    ),
    ...f.queue.releases.map((r) => ({ t: r.time, delta: -r.size })),
  ].sort((a, b) => a.t - b.t || a.delta - b.delta);
  const points = [{ t: f.queue.now, v: start }];
  let v = start;
  for (const step of steps) {
    v = step.delta < 0 ? Math.max(f.minSize, v + step.delta) : v + step.delta;
    points.push({ t: Math.max(step.t, f.queue.now), v });
  }
  return points;
}

export function chart(points: readonly CapacityPoint[], now: number, forecast?: Forecast): HTMLElement {
  const first = points[0];
  const last = points.at(-1);
  if (!first || !last) return h("p", { class: "muted" }, "No data yet.");
  // The last values hold until now.
  const series = [...points, { ...last, t: now }];
  const projected = forecast ? projectedTarget(last.targetSize ?? 0, forecast) : [];
  const known =
    forecast?.queue.requests.flatMap((r) => (r.eta.basis === "unknown" ? [] : [{ r, eta: r.eta }])) ?? [];
  const releases = forecast?.queue.releases ?? [];
  const horizon = Math.max(now, ...projected.map((p) => p.t), ...known.map((k) => k.eta.time));
  const t0 = first.t;
  // The forecast gets room after its last moment.
  const t1 = horizon > now ? horizon + (horizon - now) * 0.05 : Math.max(now, t0 + 1000);
  const top = Math.max(
    1,
    ...series.map((p) => Math.max(p.max ?? 0, p.targetSize ?? 0, p.ready ?? 0)),
    ...projected.map((p) => p.v),
  );
  // Past and forecast each get a fair share of the width (a minute of history next to an hour of
  // forecast would otherwise be a sliver): the axis is linear on either side of "now".
  const width = W - P.l - P.r;
  const past = horizon > now ? Math.min(0.65, Math.max(0.35, (now - t0) / (t1 - t0))) : 1;
  const x = (t: number) =>
    t <= now || horizon <= now
      ? P.l + ((t - t0) / Math.max(1, (horizon > now ? now : t1) - t0)) * past * width
      : P.l + past * width + ((t - now) / (t1 - now)) * (1 - past) * width;
  const y = (v: number) => H - P.b - (v / top) * (H - P.t - P.b);
  // Step lines: a value holds until the next point.
  const path = (field: Series) =>
    series
      .map((p, i) => {
        const v = p[field] ?? 0;
        return i === 0 ? `M${x(p.t)},${y(v)}` : `H${x(p.t)}V${y(v)}`;
      })
      .join("");
  const projectedPath =
    projected.map((p, i) => (i === 0 ? `M${x(p.t)},${y(p.v)}` : `H${x(p.t)}V${y(p.v)}`)).join("") +
    `H${x(t1)}`;
  const label = forecast
    ? `; forecast: ${known.length} of ${forecast.queue.requests.length} queued request(s) with an ETA, ${releases.length} release(s) ahead`
    : "";
  return h(
    "figure",
    { class: "chart" },
    s(
      "svg",
      {
        viewBox: `0 0 ${W} ${H}`,
        role: "img",
        "aria-label": `Capacity over time: target ${num(last.targetSize)}, ready ${num(last.ready)}, max ${num(last.max)}${label}`,
      },
      s("line", { class: "axis", x1: P.l, y1: H - P.b, x2: W - P.r, y2: H - P.b }),
      s("line", { class: "axis", x1: P.l, y1: P.t, x2: P.l, y2: H - P.b }),
      s("text", { x: 4, y: y(top) + 4 }, String(top)),
      s("text", { x: 4, y: H - P.b + 4 }, "0"),
      s("text", { x: P.l, y: H - 6 }, new Date(t0).toLocaleTimeString()),
      horizon > now && [
        s("line", { class: "now", x1: x(now), y1: P.t, x2: x(now), y2: H - P.b }),
        s("text", { x: W - P.r, y: H - 6, "text-anchor": "end" }, new Date(t1).toLocaleTimeString()),
      ],
      s("text", { x: x(now), y: H - 6, "text-anchor": horizon > now ? "middle" : "end" }, "now"),
      last.max !== null &&
        s("path", {
          d: path("max") + (horizon > now ? `H${x(t1)}` : ""),
          fill: "none",
          stroke: "#b91c1c",
          "stroke-dasharray": "5 4",
          "stroke-width": 1.5,
        }),
      s("path", { d: path("targetSize"), fill: "none", stroke: "#1d4ed8", "stroke-width": 2.5 }),
      // Dashed, so that it stays visible where it equals the target size.
      s("path", {
        d: path("ready"),
        fill: "none",
        stroke: "#15803d",
        "stroke-width": 2,
        "stroke-dasharray": "6 4",
      }),
      horizon > now && [
        s("path", {
          class: "forecast",
          d: projectedPath,
          fill: "none",
          stroke: "#1d4ed8",
          "stroke-width": 2,
          "stroke-dasharray": "2 3",
          opacity: 0.8,
        }),
        // Where each queued request is expected to be ready (hollow: estimated).
        known.map(({ r, eta }) =>
          s(
            "circle",
            {
              class: `eta ${eta.basis}`,
              "data-request": r.name,
              cx: x(eta.time),
              cy: y(projected.findLast((p) => p.t <= eta.time)?.v ?? 0),
              r: 4,
              fill: eta.basis === "exact" ? "#1d4ed8" : "none",
              stroke: "#1d4ed8",
              "stroke-width": 1.5,
            },
            s("title", null, `${r.name} ready ${relativeTime(eta.time, now)} (${eta.basis})`),
          ),
        ),
        // Where capacity frees: a mark on the time axis.
        releases.map((rel) =>
          s(
            "path",
            {
              class: "release",
              d: `M${x(rel.time) - 4},${H - P.b - 8}h8l-4,7z`,
              fill: "#b45309",
            },
            s(
              "title",
              null,
              `${rel.request} releases ${rel.size} ${relativeTime(rel.time, now)} (${rel.basis})`,
            ),
          ),
        ),
      ],
    ),
    h(
      "figcaption",
      { class: "legend" },
      h("span", null, h("i", { style: "background:#1d4ed8" }), "target size"),
      h("span", null, h("i", { style: "background:#15803d" }), "ready"),
      h("span", null, h("i", { style: "background:#b91c1c" }), "max"),
      horizon > now && [
        h("span", null, h("i", { class: "dotted" }), "forecast (queue model)"),
        h("span", null, "● ready expected (○ estimated)"),
        h("span", null, h("b", { style: "color:#b45309" }, "▼"), " capacity frees"),
      ],
    ),
  );
}
