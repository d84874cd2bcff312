// The capacity chart of a group: target size and ready instances as step lines, max as a dashed line.
import type { CapacityPoint } from "../views.js";
import { h, s } from "./dom.js";
import { num } from "./format.js";

const W = 640;
const H = 220;
const P = { l: 36, r: 10, t: 10, b: 24 };

type Series = "targetSize" | "ready" | "max";

export function chart(points: readonly CapacityPoint[], now: number): HTMLElement {
  const first = points[0];
  const last = points.at(-1);
  if (!first || !last) return h("p", { class: "muted" }, "No data yet.");
  // The last values hold until now.
  const series = [...points, { ...last, t: now }];
  const t0 = first.t;
  const t1 = Math.max(now, t0 + 1000);
  const top = Math.max(1, ...series.map((p) => Math.max(p.max ?? 0, p.targetSize ?? 0, p.ready ?? 0)));
  const x = (t: number) => P.l + ((t - t0) / (t1 - t0)) * (W - P.l - P.r);
  const y = (v: number) => H - P.b - (v / top) * (H - P.t - P.b);
  // Step lines: a value holds until the next point.
  const path = (field: Series) =>
    series
      .map((p, i) => {
        const v = p[field] ?? 0;
        return i === 0 ? `M${x(p.t)},${y(v)}` : `H${x(p.t)}V${y(v)}`;
      })
      .join("");
  return h(
    "figure",
    { class: "chart" },
    s(
      "svg",
      {
        viewBox: `0 0 ${W} ${H}`,
        role: "img",
        "aria-label": `Capacity over time: target ${num(last.targetSize)}, ready ${num(last.ready)}, max ${num(last.max)}`,
      },
      s("line", { class: "axis", x1: P.l, y1: H - P.b, x2: W - P.r, y2: H - P.b }),
      s("line", { class: "axis", x1: P.l, y1: P.t, x2: P.l, y2: H - P.b }),
      s("text", { x: 4, y: y(top) + 4 }, String(top)),
      s("text", { x: 4, y: H - P.b + 4 }, "0"),
      s("text", { x: P.l, y: H - 6 }, new Date(t0).toLocaleTimeString()),
      s("text", { x: W - P.r, y: H - 6, "text-anchor": "end" }, "now"),
      last.max !== null &&
        s("path", {
          d: path("max"),
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
    ),
    h(
      "figcaption",
      { class: "legend" },
      h("span", null, h("i", { style: "background:#1d4ed8" }), "target size"),
      h("span", null, h("i", { style: "background:#15803d" }), "ready"),
      h("span", null, h("i", { style: "background:#b91c1c" }), "max"),
    ),
  );
}
