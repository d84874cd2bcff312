// Leader election against the real API server: in-process electors for the Lease protocol, and real
// operator processes (test/support/runtime-elector.ts) for crash failover and graceful handover.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import * as k8s from "@kubernetes/client-node";
import { pino } from "pino";
import { KubeHttp } from "../../../src/runtime/kube-http.js";
import { LeaderElector } from "../../../src/runtime/leader-election.js";
import { httpKubeClient } from "../../../src/runtime/http-kube-client.js";
import { httpLeaseClient } from "../../../src/runtime/lease-client.js";
import { createTestNamespace, eventually, kubeConfig } from "../../support/kube.js";

const kc = kubeConfig();
const http = new KubeHttp(kc);
const core = kc.makeApiClient(k8s.CoreV1Api);
const coordination = kc.makeApiClient(k8s.CoordinationV1Api);
const log = pino({ level: "silent" });
let ns: Awaited<ReturnType<typeof createTestNamespace>>;

beforeAll(async () => {
  ns = await createTestNamespace("runtime-le");
});
afterAll(async () => {
  await ns.remove();
});

interface InProcess {
  elector: LeaderElector;
  ctl: AbortController;
  run: Promise<void>;
  leading: () => boolean;
}

function elector(lease: string, identity: string): InProcess {
  const e = new LeaderElector({
    name: lease,
    identity,
    lease: httpLeaseClient(httpKubeClient(http), ns.name, lease),
    logger: log,
  });
  const ctl = new AbortController();
  let leading = false;
  const run = e.run(ctl.signal, async (signal) => {
    leading = true;
    await new Promise<void>((resolve) => {
      signal.addEventListener("abort", () => {
        resolve();
      });
    });
    leading = false;
  });
  return { elector: e, ctl, run, leading: () => leading };
}

/**
 * Resolves once the holder of `lease` has renewed it `times` more times: evidence that the other
 * candidates had their retry periods to try (and fail) in the meantime, instead of a blind sleep.
 */
async function renewals(lease: string, times: number): Promise<void> {
  const renewTime = async () =>
    String((await coordination.readNamespacedLease({ name: lease, namespace: ns.name })).spec?.renewTime);
  let last = await renewTime();
  for (let seen = 0; seen < times;) {
    const current = await eventually(`a renewal of lease ${lease}`, async () => {
      const now = await renewTime();
      return now !== last ? now : undefined;
    });
    last = current;
    seen++;
  }
}

test("two electors: exactly one leads, and the Lease says so with MicroTime timestamps", async () => {
  const a = elector("pair", "a");
  const b = elector("pair", "b");
  try {
    await eventually("a leader", () => Promise.resolve(a.leading() || b.leading() ? true : undefined));
    // The leader renews every 2 s, the other tries every 2 s: after three renewals it has tried too.
    await renewals("pair", 3);
    expect(Number(a.leading()) + Number(b.leading())).toBe(1);
    const holder = a.leading() ? "a" : "b";
    const lease = await coordination.readNamespacedLease({ name: "pair", namespace: ns.name });
    expect(lease.spec?.holderIdentity).toBe(holder);
    expect(lease.spec?.leaseDurationSeconds).toBe(15);
    expect(lease.spec?.renewTime).toBeDefined();
    expect(lease.spec?.acquireTime).toBeDefined();
  } finally {
    a.ctl.abort();
    b.ctl.abort();
    await Promise.all([a.run, b.run]);
  }
});

test("graceful release: the follower takes over within a few seconds", async () => {
  const a = elector("release", "a");
  await eventually("a leads", () => Promise.resolve(a.leading() ? true : undefined));
  const b = elector("release", "b");
  try {
    // b is campaigning once a has renewed the lease since b started.
    await renewals("release", 1);
    a.ctl.abort();
    await a.run;
    const released = Date.now();
    const lease = await coordination.readNamespacedLease({ name: "release", namespace: ns.name });
    expect(lease.spec?.holderIdentity ?? "").toBe("");
    await eventually("b leads", () => Promise.resolve(b.leading() ? true : undefined), 10_000);
    expect(Date.now() - released).toBeLessThan(5000);
  } finally {
    b.ctl.abort();
    await b.run;
  }
});

interface Proc {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
}

function operator(lease: string, identity: string): Proc {
  // node with the tsx loader, not the tsx CLI: the CLI runs the script in a child that it shuts down
  // gracefully when the CLI dies, which would turn SIGKILL into a clean release.
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "test/support/runtime-elector.ts", ns.name, lease, identity],
    {
      env: { ...process.env },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on("line", (l) => lines.push(l));
  const exited = new Promise<number | null>((resolve) => {
    child.on("exit", (code) => {
      resolve(code);
    });
  });
  return { child, lines, exited };
}

const leads = (p: Proc): boolean => p.lines.lastIndexOf("LEADING") > p.lines.lastIndexOf("STOPPED-LEADING");

test("two operator processes: only the leader reconciles; SIGKILL it and the other takes over within 20 s", async () => {
  await core.createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name: "before" } } });
  const one = operator("failover", "one");
  const two = operator("failover", "two");
  try {
    const [leader, follower] = await eventually("a leading process", () =>
      Promise.resolve(leads(one) ? [one, two] : leads(two) ? [two, one] : undefined),
    );
    await eventually("the leader reconciled", () =>
      Promise.resolve(leader.lines.includes(`RECONCILED ${ns.name}/before`) ? true : undefined),
    );
    // The follower must not act while the leader keeps renewing.
    await renewals("failover", 2);
    expect(follower.lines.some((l) => l.startsWith("RECONCILED") || l === "LEADING")).toBe(false);

    leader.child.kill("SIGKILL");
    await leader.exited;
    const killed = Date.now();
    await core.createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name: "after" } } });
    await eventually("the follower leads", () => Promise.resolve(leads(follower) ? true : undefined), 25_000);
    const takeover = Date.now() - killed;
    process.stderr.write(`[runtime] takeover after SIGKILL took ${takeover} ms\n`);
    expect(takeover).toBeLessThan(20_000);
    await eventually("the new leader reconciled what changed meanwhile", () =>
      Promise.resolve(follower.lines.includes(`RECONCILED ${ns.name}/after`) ? true : undefined),
    );

    // Graceful shutdown: SIGTERM stops it promptly and releases the lease.
    const termAt = Date.now();
    follower.child.kill("SIGTERM");
    expect(await follower.exited).toBe(0);
    expect(Date.now() - termAt).toBeLessThan(10_000);
    expect(follower.lines.slice(-2)).toEqual(["STOPPED-LEADING", "EXITED"]);
    const lease = await coordination.readNamespacedLease({ name: "failover", namespace: ns.name });
    expect(lease.spec?.holderIdentity ?? "").toBe("");
    expect(lease.spec?.leaseTransitions).toBe(1);
  } finally {
    for (const p of [one, two])
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  }
});
