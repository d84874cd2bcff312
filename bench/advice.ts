// Advice latency: `kubectl resize advise` (run in this process, as the plugin runs it) over a namespace
// of 50 groups and 10,000 queued ResizeRequests, against the least any client must do for the same
// answer: list those requests (the bare list, same run, same client library). Also the computation
// alone (every group's capacity ahead and the advice, on the listed objects), which is what would
// grow with the queue. Five alternated rounds; medians.
import type { FutureReservation } from "../src/api/future-reservation.js";
import type { InstanceGroupManager } from "../src/api/instance-group-manager.js";
import type { ResizeRequest } from "../src/api/resize-request.js";
import { advise, groupSchedule, type GroupCapacity } from "../src/booking/advice.js";
import { adviceQuery } from "../src/plugin/args.js";
import { runPlugin } from "../src/plugin/main.js";
import { KubeHttp } from "../src/runtime/kube-http.js";
import {
  createGroupWithTarget,
  createRequest,
  igmPath,
  installCrds,
  kubeConfig,
  kubeconfigFile,
  log,
  machine,
  namespace,
  pool,
  report,
  round,
  rrPath,
} from "./lib.js";

const GROUPS = 50;
const REQUESTS = 10_000;
const ROUNDS = 5;
const ARGS = ["--count=8", "--duration=72h", "--max-duration=168h"];

const median = (xs: readonly number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

export async function adviceBench(): Promise<void> {
  const http = new KubeHttp(kubeConfig());
  await installCrds(http);
  const ns = await namespace(http, "bench-advice");
  try {
    const groups = Array.from({ length: GROUPS }, (_, i) => `g${String(i).padStart(2, "0")}`);
    await pool(groups, 8, async (g, i) => {
      await createGroupWithTarget(http, ns.name, g, { maxSize: 64 });
      // The size the operator would have written: groups without one are left out of the advice.
      await http.request("PATCH", `${igmPath(ns.name)}/${g}/status`, {
        body: { status: { targetSize: (i * 7) % 57 } }, // at most 56: 8 more fit in each
        contentType: "application/merge-patch+json",
      });
    });
    log(`advice: creating ${REQUESTS} requests`);
    await pool(
      Array.from({ length: REQUESTS }, (_, i) => i),
      16,
      (i) => createRequest(http, ns.name, `r${String(i).padStart(5, "0")}`, groups[i % GROUPS] ?? "g00"),
    );
    process.env.KUBECONFIG = kubeconfigFile();
    const plugin = async (): Promise<void> => {
      let out = "";
      const code = await runPlugin(["advise", ...ARGS, "-n", ns.name, "-o", "json"], {
        stdout: (t) => (out += t),
        stderr: (t) => process.stderr.write(t),
      });
      if (code !== 0 || !out.includes('"recommendations"')) throw new Error(`advise failed (${code})`);
    };
    const bare = (): Promise<unknown> => http.request("GET", rrPath(ns.name));
    const compute = async (): Promise<void> => {
      const [gl, rl] = (await Promise.all([
        http.request("GET", igmPath(ns.name)),
        http.request("GET", rrPath(ns.name)),
      ])) as [{ items: InstanceGroupManager[] }, { items: ResizeRequest[] }];
      const bookings: FutureReservation[] = [];
      const now = Date.now();
      const started = performance.now();
      const capacities = gl.items.flatMap((g): GroupCapacity[] => {
        const name = g.metadata.name ?? "";
        const schedule = groupSchedule(
          g,
          rl.items.filter((r) => r.spec.instanceGroupManager === name),
          bookings,
          now,
        );
        return schedule ? [{ group: name, schedule }] : [];
      });
      const q = adviceQuery(
        {
          count: 8,
          minDurationMs: 72 * 3600_000,
          maxDurationMs: 168 * 3600_000,
          startAfter: undefined,
          startBefore: undefined,
        },
        now,
      );
      if (advise(capacities, q).length !== GROUPS) throw new Error("advice left a group out");
      computeMs.push(performance.now() - started);
    };
    const computeMs: number[] = [];
    const adviseMs: number[] = [];
    const bareMs: number[] = [];
    await plugin(); // warm: module loads and the first TLS connection are not the figure
    for (let i = 0; i < ROUNDS; i++) {
      bareMs.push(await timed(bare));
      adviseMs.push(await timed(plugin));
      await compute();
    }
    report({
      bench: "advice",
      groups: GROUPS,
      queuedRequests: REQUESTS,
      rounds: ROUNDS,
      adviseMs: round(median(adviseMs), 1),
      adviseRoundsMs: adviseMs.map((x) => round(x, 1)),
      bareListMs: round(median(bareMs), 1),
      bareListRoundsMs: bareMs.map((x) => round(x, 1)),
      computeMs: round(median(computeMs), 2),
      // The bare list's time ÷ advise's: 1 would be advice at the cost of reading the queue once.
      ratio: round(median(bareMs) / median(adviseMs)),
      machine: machine(),
    });
  } finally {
    await ns.remove();
  }
}
