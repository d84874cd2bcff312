// `npm run bench [-- NAME...]`: runs the benchmarks (all, or those named) one after another against the
// local cluster from `npm run cluster:up`. Each prints one JSON line and writes bench/results/NAME.json.
// BENCH_CPU_PROF=1 also writes CPU profiles of the operator (throughput and REST runs) to .local/bench/work.
// Flags after the names go to the benchmarks (bench/args.ts): `npm run bench -- provisioning --jobs 2000`.
// `startup` is the start-up part of `memory` alone (memory.ts): either writes startup-N.json.
import path from "node:path";
import { adviceBench } from "./advice.js";
import { buildOperator, kubeconfigFile, log, workDir } from "./lib.js";
import { splitArgs } from "./args.js";
import { eventSeries } from "./events.js";
import { memoryAndStartup } from "./memory.js";
import { provisioning } from "./provisioning.js";
import { redisTopologies } from "./redis-topologies.js";
import { restBench } from "./rest.js";
import { scale } from "./scale.js";
import { throughput } from "./throughput.js";

const profileDir = (name: string): string | undefined =>
  process.env.BENCH_CPU_PROF ? path.join(workDir, "profile", name) : undefined;

const { names: wanted, flags } = splitArgs(process.argv.slice(2));

const BENCHES: Record<string, (cli: string) => Promise<void>> = {
  throughput: (cli) => throughput(cli, profileDir("throughput")),
  rest: (cli) => restBench(cli, profileDir("rest")),
  "redis-topologies": redisTopologies,
  scale: (cli) => scale(cli, profileDir("scale")),
  memory: (cli) => memoryAndStartup(cli, ["memory", "startup", "takeover"]),
  // The start-up figures alone (memory writes them too): start-up against a bare list of the same objects.
  startup: (cli) => memoryAndStartup(cli, ["startup"]),
  events: () => eventSeries(),
  provisioning: (cli) => provisioning(cli, flags),
  advice: () => adviceBench(),
};

for (const name of wanted)
  if (!(name in BENCHES))
    throw new Error(`unknown benchmark ${name}; have ${Object.keys(BENCHES).join(", ")}`);
kubeconfigFile();
const cli = buildOperator();
/** Benchmarks whose results another one writes too: not run twice when both are (or all are) wanted. */
const COVERED_BY: Readonly<Record<string, string>> = { startup: "memory" };
const selected = (name: string): boolean => wanted.length === 0 || wanted.includes(name);
for (const [name, run] of Object.entries(BENCHES)) {
  const coveredBy = COVERED_BY[name];
  if (!selected(name) || (coveredBy !== undefined && selected(coveredBy))) continue;
  const started = Date.now();
  log(`${name}: starting`);
  await run(cli);
  log(`${name}: done in ${Math.round((Date.now() - started) / 1000)} s`);
}
