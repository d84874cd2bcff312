// CPU time on the whole machine and in this process, to say what bounds a throughput ratio when every
// side (API server, etcd, the operator or the floor, this benchmark) shares the same cores: if both
// sides are CPU-bound, the ratio of their throughputs is the inverse of the ratio of the machine's CPU
// each spends per request. Linux only (/proc/stat).
import { readFileSync } from "node:fs";
import { readClusterState } from "../testbed/cluster.js";
import { localClusterDir } from "../testbed/local.js";
import { setTimeout as sleep } from "node:timers/promises";

/** /proc/stat counts in USER_HZ, which the kernel fixes at 100 for user space whatever its own HZ. */
const MS_PER_TICK = 10;

export interface CpuMark {
  /** The machine's busy CPU time so far (every core: user, nice, system, irq, softirq, steal), ms. */
  readonly machineMs: number;
  /** This process's CPU time so far (user + system), ms. */
  readonly selfMs: number;
  readonly at: number;
}

export function cpuMark(): CpuMark {
  const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0] ?? "";
  const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
  const busy = [user, nice, system, irq, softirq, steal].reduce<number>((a, v) => a + (v ?? 0), 0);
  const self = process.cpuUsage();
  return { machineMs: busy * MS_PER_TICK, selfMs: (self.user + self.system) / 1000, at: Date.now() };
}

/**
 * The machine's busy CPU per second while nothing of the benchmark runs (the control plane's own
 * controllers, kwok, anything else on the machine), measured over `ms`.
 */
export async function backgroundCpuPerSecond(ms = 3000): Promise<number> {
  const a = cpuMark();
  await sleep(ms);
  const b = cpuMark();
  return (b.machineMs - a.machineMs) / ((b.at - a.at) / 1000);
}

/** The machine's CPU between two marks, less the background's share of that time. */
export function machineCpuMsBetween(a: CpuMark, b: CpuMark, backgroundPerSecond: number): number {
  return Math.max(0, b.machineMs - a.machineMs - backgroundPerSecond * ((b.at - a.at) / 1000));
}

/** A Node process's CPU seconds from its Prometheus text (prom-client's process_cpu_seconds_total). */
export function processCpuSeconds(metrics: string): number {
  const m = /^process_cpu_seconds_total (\S+)$/m.exec(metrics);
  return m?.[1] === undefined ? Number.NaN : Number(m[1]);
}

/** A process's CPU time so far (user + system), ms; NaN once it is gone. */
export function processCpuMs(pid: number): number {
  try {
    // Fields after the command's closing parenthesis (the command may contain spaces): utime is the
    // 12th of them, stime the 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
  } catch {
    return Number.NaN;
  }
}

/** The pid of the local cluster's process `name` (e.g. etcd), as `npm run cluster:up` recorded it. */
export function clusterPid(name: string): number | undefined {
  return readClusterState(localClusterDir)?.processes.find((p) => p.name === name)?.pid;
}
