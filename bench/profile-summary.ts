// Where the operator's CPU time went: `tsx bench/profile-summary.ts FILE.cpuprofile` prints self time by
// area (our source file, a dependency, Node internals, GC, idle) from a `node --cpu-prof` profile, such
// as the one `BENCH_CPU_PROF=1 npm run bench -- throughput` writes to .local/bench/work/profile/.
import { readFileSync } from "node:fs";

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  samples: number[];
  timeDeltas: number[];
}

/** The area a frame belongs to: "(idle)", "node_modules/<pkg>", "src/<file>", "node:<module>", … */
function area(url: string, fn: string): string {
  if (url === "") return fn.startsWith("(") ? fn : "(native)";
  const dep = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dep) return `node_modules/${dep[1] ?? ""}`;
  const ours = /\/(?:build|src)\/(.+)$/.exec(url);
  if (ours) return `src/${(ours[1] ?? "").replace(/\.js$/, ".ts")}`;
  return url.startsWith("node:") ? url : "(other)";
}

const file = process.argv[2];
if (!file) throw new Error("usage: profile-summary.ts FILE.cpuprofile");
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
const self = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const frame = byId.get(id);
  const us = profile.timeDeltas[i] ?? 0;
  total += us;
  const key = frame ? area(frame.url, frame.functionName) : "(unknown)";
  self.set(key, (self.get(key) ?? 0) + us);
});
const busy = total - (self.get("(idle)") ?? 0);
process.stdout.write(
  `wall ${(total / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s (${((100 * busy) / total).toFixed(0)}%)\n`,
);
for (const [key, us] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15))
  process.stdout.write(
    `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1e6).toFixed(2).padStart(7)} s  ${key}\n`,
  );
