// Faults 4: three operator replicas with leader election under load (50 requests created at once over
// 10 groups). The leader is SIGKILLed at random moments, twice, and a fresh replica replaces each dead
// one; another replica takes over every time, and afterwards every request is final and each
// target's replicas equal exactly what its requests imply. Lease timings are shortened
// (4 s / 3 s / 1 s) to keep the bounded run short. Soak: repeated until SOAK_MINUTES are over.
import * as k8s from "@kubernetes/client-node";
import { setTimeout as sleep } from "node:timers/promises";
import { eventually, kubeConfig } from "../support/kube.js";
import { startOperator, stopAll } from "../support/operator.js";
import { reliabilitySuite } from "../support/reliability-suite.js";
import { seededRandom, settleAndCheck } from "../support/reliability.js";
import { createRequest } from "../support/resize.js";

const REPLICAS = 3;
const LEADER_KILLS = 2;
const GROUPS = 10;
const REQUESTS = 50;
const LEASE = "resize-operator-leader";
const ARGS = ["--lease-duration=4s", "--renew-deadline=3s", "--retry-period=1s", "--concurrency=10"];

const coordination = kubeConfig().makeApiClient(k8s.CoordinationV1Api);
const seed = Number(process.env.CRASH_SEED ?? Date.now() % 100_000);
const random = seededRandom(seed);
const suite = reliabilitySuite();

async function lease(namespace: string): Promise<k8s.V1Lease | undefined> {
  try {
    return await coordination.readNamespacedLease({ name: LEASE, namespace });
  } catch {
    return undefined;
  }
}

async function round(index: number): Promise<Record<string, number>> {
  const started = Date.now();
  const ns = await suite.namespace(`rel-failover-${index}`, GROUPS);
  const { groups } = ns;
  let replicaCount = 0;
  const replica = () => {
    const op = startOperator({
      namespace: ns.name,
      name: `fo${index}-${replicaCount++}`,
      leaderElect: true,
      args: ARGS,
    });
    suite.track(op);
    return op;
  };
  const live = Array.from({ length: REPLICAS }, replica);
  await Promise.all(
    Array.from({ length: REQUESTS }, (_, i) =>
      createRequest(ns.name, `r${i}`, {
        instanceGroupManager: groups[i % GROUPS],
        resizeBy: 1 + Math.floor(random() * 2),
        ...(random() < 0.2 && { requestedRunDuration: { seconds: "2" } }),
      }),
    ),
  );
  const takeovers: number[] = [];
  for (let kill = 0; kill < LEADER_KILLS; kill++) {
    const holder = await eventually("a leader", async () => {
      const id = (await lease(ns.name))?.spec?.holderIdentity ?? "";
      return live.find((op) => id.startsWith(op.name) && !op.exited());
    });
    await sleep(1_000 + random() * 2_000);
    await holder.kill();
    const killedAt = Date.now();
    live.splice(live.indexOf(holder), 1);
    live.push(replica());
    const next = await eventually(
      "another replica to lead",
      async () => {
        const l = await lease(ns.name);
        const id = l?.spec?.holderIdentity ?? "";
        return id !== "" && !id.startsWith(holder.name) ? l : undefined;
      },
      30_000,
    );
    const acquired = next.spec?.acquireTime ? new Date(next.spec.acquireTime).getTime() : Date.now();
    takeovers.push(acquired - killedAt);
  }
  await settleAndCheck(ns.name, groups, REQUESTS, 120_000);
  for (const op of live) expect(op.exited()).toBe(false);
  await stopAll(live);
  // The lease was 4 s: a takeover within lease + retry period + start-up.
  for (const ms of takeovers) expect(ms).toBeLessThan(15_000);
  return { ms: Date.now() - started, maxTakeoverMs: Math.max(...takeovers) };
}

suite.soak(
  `leader failover under load with ${REPLICAS} replicas: takeover, right final states, replicas exactly implied (seed ${seed})`,
  { name: "failover", boundedMs: 240_000, fixed: { seed, replicas: REPLICAS, leaderKills: LEADER_KILLS } },
  round,
);
