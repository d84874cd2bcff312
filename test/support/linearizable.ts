// The parts of the linearizability test (test/reliability/linearizable.test.ts): operator replicas
// serving REST on fixed ports (a killed one comes back on its own port, so the recorder's endpoint
// list stays valid), the leader's identity, and one run of the recorder (test/linearizable) with its
// RESULT line parsed.
import * as k8s from "@kubernetes/client-node";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "../../testbed/processes.js";
import { eventually, kubeConfig } from "./kube.js";
import { startOperator, type OperatorProcess } from "./operator.js";
import { untilReady } from "./rest.js";

const LEASE = "resize-operator-leader";
// Short leases so that a kill or a freeze changes leader within the history that suffers it.
const ELECTION = ["--lease-duration=4s", "--renew-deadline=3s", "--retry-period=1s"];

/** The operator's shutdown deadline (`--shutdown-timeout`, 30 s), the exit after it and a margin. */
const STOP_DEADLINE_MS = 45_000;
const coordination = kubeConfig().makeApiClient(k8s.CoordinationV1Api);

export interface Replica {
  readonly index: number;
  readonly baseUrl: string;
  readonly port: number;
  process: OperatorProcess;
}

/** Replicas with leader election and REST on their own ports; `track` receives every process started. */
export class Replicas {
  readonly all: Replica[] = [];
  private started = 0;

  /**
   * `redis` are the operator's Redis flags (a URL, or Sentinels); `env` its environment additions
   * (KUBECONFIG naming a fault proxy).
   */
  constructor(
    private readonly namespace: string,
    private readonly redis: readonly string[],
    private readonly track: (p: OperatorProcess) => void,
    private readonly env: Readonly<Record<string, string>> = {},
  ) {}

  async start(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const port = await freePort();
      const replica: Replica = {
        index: i,
        port,
        baseUrl: `http://127.0.0.1:${port}`,
        process: this.spawn(port),
      };
      this.all.push(replica);
    }
    await Promise.all(this.all.map((r) => untilReady(r.baseUrl, r.process)));
  }

  private spawn(port: number): OperatorProcess {
    const proc = startOperator({
      namespace: this.namespace,
      name: `linz-${this.started++}`,
      leaderElect: true,
      env: this.env,
      args: [
        `--http-port=${port}`,
        ...this.redis,
        `--public-url=http://127.0.0.1:${port}`,
        "--concurrency=5",
        ...ELECTION,
      ],
    });
    this.track(proc);
    return proc;
  }

  /** The replica holding the Lease (waits for one). */
  async leader(): Promise<Replica> {
    return eventually("a leader", async () => {
      const lease = await coordination
        .readNamespacedLease({ name: LEASE, namespace: this.namespace })
        .catch(() => undefined);
      const id = lease?.spec?.holderIdentity ?? "";
      return this.all.find((r) => id.startsWith(r.process.name) && !r.process.exited());
    });
  }

  /** SIGKILLs `r` and starts a new process on its port (as a restarted pod behind the same Service). */
  async killAndRestart(r: Replica, downMs: number): Promise<void> {
    await r.process.kill();
    await new Promise((resolve) => setTimeout(resolve, downMs));
    r.process = this.spawn(r.port);
    await untilReady(r.baseUrl, r.process);
  }

  /**
   * SIGSTOPs `r` for `ms` (longer than the lease: another replica takes over while it still believes
   * it leads), then SIGCONTs it. Always continued, even if the wait is interrupted.
   */
  async freeze(r: Replica, ms: number): Promise<void> {
    r.process.child.kill("SIGSTOP");
    try {
      await new Promise((resolve) => setTimeout(resolve, ms));
    } finally {
      r.process.child.kill("SIGCONT");
    }
  }

  /**
   * Stops every replica (SIGTERM), e.g. before the next phase's replicas take the Lease. A replica
   * must exit within its shutdown deadline (30 s) and a margin; one that does not is SIGKILLed and
   * named in the result, so a process that outlives its "stopped" fails the run instead of hanging it.
   */
  async stop(): Promise<string[]> {
    const late = await Promise.all(
      this.all.map(async (r) => {
        const patience = new AbortController();
        const stopped = r.process.stop().then(() => true);
        const timedOut = sleep(STOP_DEADLINE_MS, false, { signal: patience.signal }).catch(() => true);
        const inTime = await Promise.race([stopped, timedOut]);
        patience.abort();
        if (inTime) return undefined;
        await r.process.kill();
        return `${r.process.name} still running ${STOP_DEADLINE_MS / 1000} s after SIGTERM`;
      }),
    );
    return late.filter((l): l is string => l !== undefined);
  }

  /** Every replica alive (none exited on its own during the run). */
  alive(): boolean {
    return this.all.every((r) => !r.process.exited());
  }
}

/** The API server's address in the tests' kubeconfig. */
export function apiServerAddress(): { host: string; port: number } {
  const server = new URL(kubeConfig().getCurrentCluster()?.server ?? "");
  return { host: server.hostname, port: Number(server.port || 443) };
}

/**
 * Writes to `file` a copy of the tests' kubeconfig whose server is `127.0.0.1:<port>` (a fault proxy in
 * front of the API server; its certificate names 127.0.0.1, so TLS still verifies through the proxy).
 */
export function writeProxiedKubeconfig(file: string, port: number): void {
  const kc = kubeConfig();
  const proxied = new k8s.KubeConfig();
  proxied.loadFromOptions({
    clusters: kc.clusters.map((c) => ({ ...c, server: `https://127.0.0.1:${port}` })),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.getCurrentContext(),
  });
  writeFileSync(file, proxied.exportConfig());
}

/** The recorder's summary of one history (test/linearizable/main.go, `summary`). */
export interface HistoryResult {
  readonly history: string;
  readonly verdict: string;
  readonly ops: number;
  readonly open: number;
  readonly byKind: Record<string, number>;
  readonly checkMs: number;
  readonly mutations: number;
  readonly caught: number;
  readonly missed?: string[];
  readonly html?: string;
  /** The call whose answer made the history illegal. */
  readonly first?: string;
  /** Events the history's client-go watch delivered, and what broke the watch's guarantees. */
  readonly watchEvents: number;
  readonly watchProblems?: string[];
}

function isHistoryResult(x: unknown): x is HistoryResult {
  if (typeof x !== "object" || x === null) return false;
  const r = x as Record<string, unknown>;
  return (
    typeof r.history === "string" &&
    typeof r.verdict === "string" &&
    typeof r.ops === "number" &&
    typeof r.open === "number" &&
    typeof r.checkMs === "number" &&
    typeof r.mutations === "number" &&
    typeof r.caught === "number" &&
    typeof r.watchEvents === "number" &&
    typeof r.byKind === "object"
  );
}

export interface RecorderRun {
  readonly code: number | null;
  readonly stderr: string;
  /** Undefined when the program printed no RESULT line (it failed before checking). */
  readonly result?: HistoryResult;
}

/** Runs `binary args…` to its end and parses its RESULT line. */
export function runRecorder(binary: string, args: readonly string[]): Promise<RecorderRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const line = stdout.split("\n").find((l) => l.startsWith("RESULT "));
      const parsed: unknown = line ? JSON.parse(line.slice("RESULT ".length)) : undefined;
      resolve({ code, stderr, ...(isHistoryResult(parsed) && { result: parsed }) });
    });
  });
}
