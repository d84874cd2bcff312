// --redis-min-replica-acks against topologies that cannot, or for a while do not, meet it, with real
// redis-server processes started by this file. A Cluster of three masters without replicas with the
// default (1 for a Cluster) stops start-up with exit 2, naming the flag, each shard with its replica
// count and both ways out; with 0 it starts. A Sentinel set whose master has one replica loses it (a
// SIGKILL): /readyz turns 503 with the reason, the gauge counts the master, one log line says so and
// inserts answer 503; an operator started meanwhile starts (the Sentinels still list the replica, so
// it is expected back) and reports the same; when the replica is back, all of it clears.
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import {
  freePort,
  startProcess,
  stopProcess,
  waitFor,
  type ManagedProcess,
} from "../../../testbed/processes.js";
import { command, Member, SENTINEL_MASTER } from "../../../testbed/redis-topologies.js";
import { redisServerBinary, startRedis } from "../../../testbed/redis.js";
import { installApi } from "../api/install.js";
import { createTestNamespace } from "../../support/kube.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { createGroup, createWorkers } from "../../support/resize.js";
import {
  call,
  fullAccess,
  serviceAccountToken,
  startRestOperator,
  type RestOperator,
} from "../../support/rest.js";

const run = promisify(execFile);
const ZONE = "local-a";
const SHORT_GAUGE = "redis_masters_short_of_replicas";
const processes: OperatorProcess[] = [];
let ns: { name: string; remove: () => Promise<void> };
let dir: string;

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("replica-acks");
  dir = path.join(process.env.TESTBED_DIR ?? "", `replica-acks-${ns.name}`);
  mkdirSync(dir, { recursive: true });
}, 240_000);
afterAll(async () => {
  await stopAll(processes);
  await ns.remove();
});

/** A member on a free port with AOF, restartable on the same port and data folder. */
async function member(folder: string, args: readonly string[]): Promise<Member> {
  return new Member(await startRedis({ dir: folder, appendOnly: true, args }), folder, args);
}

/** The exit code, once the process has exited. */
function exitCode(p: OperatorProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (p.child.exitCode !== null) resolve(p.child.exitCode);
    else p.child.once("exit", resolve);
  });
}

const logOf = (p: OperatorProcess): string => readFileSync(p.log, "utf8");

describe("a Redis Cluster without replicas", () => {
  const members: Member[] = [];
  let nodesFlag = "";

  beforeAll(async () => {
    const folder = path.join(dir, "cluster");
    for (let i = 0; i < 3; i++)
      members.push(
        await member(
          folder,
          ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"].concat(
            // The bus defaults to port + 10000, which nothing reserved.
            ["--cluster-port", String(await freePort())],
          ),
        ),
      );
    nodesFlag = members.map((m) => `127.0.0.1:${m.port}`).join(",");
    await run("redis-cli", [
      "--cluster",
      "create",
      ...nodesFlag.split(","),
      "--cluster-replicas",
      "0",
      "--cluster-yes",
    ]);
    await waitFor(
      "cluster_state:ok on every node",
      async () => {
        for (const m of members) {
          const state = await command(m.port, "CLUSTER", "INFO");
          if (typeof state !== "string" || !state.includes("cluster_state:ok")) return false;
        }
        return true;
      },
      30_000,
    );
  }, 60_000);
  afterAll(async () => {
    await Promise.all(members.map((m) => m.stop()));
  });

  test("the default acks stop start-up with exit 2, the flag, each shard's replicas and both ways out", async () => {
    const op = startOperator({
      namespace: ns.name,
      name: "cluster-acks",
      args: [`--redis-cluster-nodes=${nodesFlag}`],
    });
    processes.push(op);
    expect(await exitCode(op)).toBe(2);
    const lines = logOf(op)
      .split("\n")
      .filter((l) => l.startsWith("resize-operator run: "));
    expect(lines).toHaveLength(1);
    const line = lines[0] ?? "";
    expect(line).toMatch(
      /^resize-operator run: --redis-min-replica-acks=1 \(REDIS_MIN_REPLICA_ACKS\) cannot be met: every Operation write must reach 1 replica, but /,
    );
    for (const m of members)
      expect(line).toMatch(new RegExp(`127\\.0\\.0\\.1:${m.port} \\(slots [0-9-]+\\) has 0 replicas`));
    expect(line).toContain(
      "Either give every master at least 1 replica, or set --redis-min-replica-acks=0 to acknowledge writes the master alone holds",
    );
    expect(logOf(op)).not.toContain("starting resize-operator");
  }, 60_000);

  test("with --redis-min-replica-acks=0 it starts and is ready", async () => {
    const rest = await startRestOperator(ns.name, [
      `--redis-cluster-nodes=${nodesFlag}`,
      "--redis-min-replica-acks=0",
    ]);
    processes.push(rest.process);
    expect(await (await fetch(`${rest.baseUrl}/readyz`)).text()).toBe("ok");
    await rest.process.stop();
  }, 90_000);
});

describe("a Sentinel set losing its master's only replica", () => {
  let master: Member;
  let replica: Member;
  const sentinels: ManagedProcess[] = [];
  let sentinelsFlag = "";

  beforeAll(async () => {
    const folder = path.join(dir, "sentinel");
    mkdirSync(folder, { recursive: true });
    master = await member(folder, []);
    replica = await member(folder, ["--replicaof", "127.0.0.1", String(master.port)]);
    const ports: number[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const conf = path.join(folder, `sentinel-${port}.conf`);
      // Sentinel rewrites its configuration file: a writable one of its own.
      writeFileSync(
        conf,
        [
          `port ${port}`,
          "bind 127.0.0.1",
          `dir ${folder}`,
          `sentinel monitor ${SENTINEL_MASTER} 127.0.0.1 ${master.port} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_MASTER} 1000`,
          "",
        ].join("\n"),
      );
      sentinels.push(startProcess(`sentinel-${port}`, redisServerBinary(), [conf, "--sentinel"], folder));
      ports.push(port);
    }
    sentinelsFlag = ports.map((p) => `127.0.0.1:${p}`).join(",");
    await waitFor(
      "the replica in sync and known to every Sentinel",
      async () => {
        for (const port of ports) {
          const replicas = await command(port, "SENTINEL", "REPLICAS", SENTINEL_MASTER);
          if (!Array.isArray(replicas) || replicas.length !== 1) return false;
        }
        const info = await command(master.port, "INFO", "replication");
        return typeof info === "string" && info.includes("state=online");
      },
      30_000,
    );
  }, 60_000);
  afterAll(async () => {
    await Promise.all([...sentinels.map((s) => stopProcess(s)), master.stop(), replica.stop()]);
  });

  const flags = (): string[] => [
    `--redis-sentinels=${sentinelsFlag}`,
    `--redis-sentinel-master=${SENTINEL_MASTER}`,
  ];

  async function gauge(metricsPort: number): Promise<number | undefined> {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const line = text.split("\n").find((l) => l.startsWith(`${SHORT_GAUGE} `));
    return line === undefined ? undefined : Number(line.split(" ")[1]);
  }

  async function readyz(rest: RestOperator): Promise<{ status: number; body: string }> {
    const res = await fetch(`${rest.baseUrl}/readyz`);
    return { status: res.status, body: await res.text() };
  }

  const warnings = (p: OperatorProcess): number =>
    logOf(p)
      .split("\n")
      .filter((l) => l.includes('"msg":"redis replicas: --redis-min-replica-acks=1 cannot be met now'))
      .length;

  test("/readyz, the gauge and one log line report it while it lasts; a start meanwhile is not refused", async () => {
    await createWorkers(ns.name, "workers", 0);
    await createGroup(ns.name, "workers", { maxSize: 50 });
    const token = await serviceAccountToken(ns.name, "acks-client", fullAccess());
    const metricsPort = await freePort();
    const rest = await startRestOperator(ns.name, flags(), [`--metrics-port=${metricsPort}`]);
    processes.push(rest.process);
    const insert = (name: string) =>
      call(
        "POST",
        `${rest.baseUrl}/compute/v1/projects/${ns.name}/zones/${ZONE}/instanceGroupManagers/workers/resizeRequests`,
        { token, body: { name, resizeBy: 1 } },
      );
    expect((await insert("before")).status).toBe(200);
    await waitFor("the gauge at 0", async () => (await gauge(metricsPort)) === 0, 15_000);

    await replica.kill();
    await waitFor("/readyz 503 with the reason", async () => (await readyz(rest)).status === 503, 30_000);
    expect((await readyz(rest)).body).toBe(
      `redis replicas: --redis-min-replica-acks=1 cannot be met now: Sentinel master "${SENTINEL_MASTER}" has 0 replicas in sync; inserts and deletes of their projects answer 503 until a replica is back`,
    );
    expect(await gauge(metricsPort)).toBe(1);
    expect((await insert("during")).status).toBe(503);
    // A state, not a stream: after a few more checks (every 5 s) still one line.
    await sleep(11_000);
    expect(warnings(rest.process)).toBe(1);

    // The Sentinels still list the replica: a start now is not refused, and reports the same state.
    const second = await startOperatorUntilListening(flags());
    expect(second.exited()).toBe(false);
    expect(logOf(second)).not.toContain("resize-operator run: ");

    await replica.restart();
    await waitFor("/readyz 200 again", async () => (await readyz(rest)).status === 200, 60_000);
    expect(await gauge(metricsPort)).toBe(0);
    expect(logOf(rest.process)).toContain('"msg":"redis replicas: every master has enough again"');
    expect((await insert("after")).status).toBe(200);
    await Promise.all([rest.process.stop(), second.stop()]);
  }, 180_000);

  /** An operator started with `args`, once /readyz answers (503 with the replicas' reason). */
  async function startOperatorUntilListening(args: readonly string[]): Promise<OperatorProcess> {
    const port = await freePort();
    const op = startOperator({
      namespace: ns.name,
      name: "acks-late",
      args: [`--http-port=${port}`, ...args],
    });
    processes.push(op);
    await waitFor(
      "the late operator reports the missing replica",
      async () => {
        if (op.exited()) return true;
        const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        return (await res?.text())?.startsWith("redis replicas: ") ?? false;
      },
      60_000,
    );
    return op;
  }
});
