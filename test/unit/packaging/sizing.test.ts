// The chart's memory defaults and the sizing table of docs/install.md come from the memory benchmark
// (bench/results/memory.json, docs/performance.md): RSS = the operator's floor + bytes per cached
// ResizeRequest × requests. Re-running the benchmark with other figures fails this test until the
// defaults and the table follow.
import { readFileSync } from "node:fs";
import { parse } from "yaml";

const MiB = 1024 * 1024;
/** Limits leave 1.5× the expected RSS: garbage-collector slack and a relist's pages in flight. */
const HEADROOM = 1.5;
/** The chart's default request fits this many cached requests, its limit the largest row. */
const DEFAULT_REQUEST_AT = 10_000;
const ROWS = [1_000, 10_000, 100_000] as const;

const read = (file: string): string => readFileSync(new URL(`../../../${file}`, import.meta.url), "utf8");
const bench = JSON.parse(read("bench/results/memory.json")) as {
  objects: number;
  rssMiB: number;
  baselineRssMiB: number;
  bytesPerObject: number;
};

/** Expected RSS in MiB with `requests` ResizeRequests cached. */
const rss = (requests: number): number => bench.baselineRssMiB + (bench.bytesPerObject * requests) / MiB;
/** Up to the next multiple of 64 Mi, as a Kubernetes quantity. */
const quantity = (mib: number): string => `${Math.ceil(mib / 64) * 64}Mi`;
const sizing = (requests: number) => ({
  rss: Math.round(rss(requests)),
  request: quantity(rss(requests)),
  limit: quantity(rss(requests) * HEADROOM),
});

test("the formula reproduces the benchmark's own measurement", () => {
  expect(Math.abs(rss(bench.objects) - bench.rssMiB)).toBeLessThan(1);
});

test("the chart's default memory request and limit are the table's 10,000 and 100,000 rows", () => {
  const values = parse(read("charts/resize-operator/values.yaml")) as {
    resources: { requests: { memory: string }; limits: { memory: string } };
  };
  expect(values.resources.requests.memory).toBe(sizing(DEFAULT_REQUEST_AT).request);
  expect(values.resources.limits.memory).toBe(sizing(ROWS[ROWS.length - 1] ?? 0).limit);
});

test("docs/install.md's sizing table shows the formula's figures", () => {
  const doc = read("docs/install.md");
  for (const requests of ROWS) {
    const { rss: mib, request, limit } = sizing(requests);
    const row = new RegExp(
      `^\\| ${requests.toLocaleString("en-US")}\\s+\\| ${mib} MiB\\s+\\| \`${request}\`\\s+\\| \`${limit}\`\\s+\\|`,
      "m",
    );
    expect(doc).toMatch(row);
  }
  const perTenThousand = ((bench.bytesPerObject * 10_000) / MiB).toFixed(1);
  expect(doc).toContain(`${bench.baselineRssMiB.toFixed(0)} MiB + ${perTenThousand} MiB per 10,000`);
});
