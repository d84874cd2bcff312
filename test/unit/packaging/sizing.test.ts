// The chart's memory defaults and the sizing table of docs/install.md come from the memory benchmark
// (bench/results/memory-100000.json, docs/performance.md): RSS = the operator's floor + bytes per
// cached ResizeRequest × requests, and the same for the peak RSS (while the first list is decoded).
// Re-running the benchmark with other figures fails this test until the defaults and the table follow.
import { readFileSync } from "node:fs";
import { parse } from "yaml";

const MiB = 1024 * 1024;
/** Limits leave 1.25× the expected peak: a relist's pages on top of a full cache, GC timing. */
const HEADROOM = 1.25;
/** The chart's default request fits this many cached requests, its limit the 100,000 row. */
const DEFAULT_REQUEST_AT = 10_000;
const DEFAULT_LIMIT_AT = 100_000;
const ROWS = [1_000, 10_000, 100_000, 250_000] as const;

interface Measured {
  objects: number;
  rssMiB: number;
  baselineRssMiB: number;
  bytesPerObject: number;
  peakRssMiB: number;
  baselinePeakRssMiB: number;
}

const read = (file: string): string => readFileSync(new URL(`../../../${file}`, import.meta.url), "utf8");
const measured = (objects: number): Measured =>
  JSON.parse(read(`bench/results/memory-${objects}.json`)) as Measured;
const bench = measured(100_000);
const peakBytesPerObject = ((bench.peakRssMiB - bench.baselinePeakRssMiB) * MiB) / bench.objects;

/** Expected RSS in MiB with `requests` ResizeRequests cached. */
const rss = (requests: number): number => bench.baselineRssMiB + (bench.bytesPerObject * requests) / MiB;
/** Expected peak RSS in MiB (the first list of `requests`). */
const peak = (requests: number): number => bench.baselinePeakRssMiB + (peakBytesPerObject * requests) / MiB;
/** Up to the next multiple of 64 Mi, as a Kubernetes quantity. */
const quantity = (mib: number): string => `${Math.ceil(mib / 64) * 64}Mi`;
const sizing = (requests: number) => ({
  rss: Math.round(rss(requests)),
  peak: Math.round(peak(requests)),
  request: quantity(rss(requests)),
  limit: quantity(peak(requests) * HEADROOM),
});

test("the formula reproduces the benchmark's own measurement", () => {
  expect(Math.abs(rss(bench.objects) - bench.rssMiB)).toBeLessThan(1);
});

test("memory grows linearly: the formula predicts the 250,000 measurement within 10 %", () => {
  const large = measured(250_000);
  expect(Math.abs(rss(large.objects) - large.rssMiB) / large.rssMiB).toBeLessThan(0.1);
  expect(large.peakRssMiB).toBeLessThanOrEqual(peak(large.objects) * HEADROOM);
});

test("the chart's default memory request and limit are the table's 10,000 and 100,000 rows", () => {
  const values = parse(read("charts/resize-operator/values.yaml")) as {
    resources: { requests: { memory: string }; limits: { memory: string } };
  };
  expect(values.resources.requests.memory).toBe(sizing(DEFAULT_REQUEST_AT).request);
  expect(values.resources.limits.memory).toBe(sizing(DEFAULT_LIMIT_AT).limit);
});

test("docs/install.md's sizing table shows the formula's figures", () => {
  const doc = read("docs/install.md");
  for (const requests of ROWS) {
    const { rss: mib, peak: top, request, limit } = sizing(requests);
    const row = new RegExp(
      `^\\| ${requests.toLocaleString("en-US")}\\s+\\| ${mib} MiB\\s+\\| ${top} MiB\\s+\\| \`${request}\`\\s+\\| \`${limit}\`\\s+\\|`,
      "m",
    );
    expect(doc).toMatch(row);
  }
  const perTenThousand = ((bench.bytesPerObject * 10_000) / MiB).toFixed(1);
  expect(doc).toContain(`${bench.baselineRssMiB.toFixed(0)} MiB + ${perTenThousand} MiB per 10,000`);
});
