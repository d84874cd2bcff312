// g. Two operator processes with leader election: only the leader acts; when it is killed, the other
// takes over within 20 s and serves new requests.
// h. A watch cut by the API server (restarted) is re-established without losing updates.
import * as k8s from "@kubernetes/client-node";
import { REPORTING_CONTROLLER } from "../../../src/api/names.js";
import { startComponent, stopComponent } from "../../../testbed/components.js";
import { createTestNamespace, eventually, kubeConfig } from "../../support/kube.js";
import { installApi, kubectl } from "../api/install.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import {
  createGroup,
  createRequest,
  createWorkers,
  getRequest,
  replicasOf,
  untilState,
} from "../../support/resize.js";

const coordination = kubeConfig().makeApiClient(k8s.CoordinationV1Api);
const LEASE = "resize-operator-leader";
// The default lease (15 s) and renew deadline (10 s), with a 1 s retry period: candidates notice an
// expired lease up to 1.2 retry periods late (client-go's jitter), so with the default 2 s takeover
// takes 15–20 s and can pass 20 s on a loaded machine; 1 s keeps it within 20 s.
const RETRY = ["--retry-period=1s"];
let ns: Awaited<ReturnType<typeof createTestNamespace>>;
const operators: OperatorProcess[] = [];

async function holder(): Promise<string | undefined> {
  try {
    const lease = await coordination.readNamespacedLease({ name: LEASE, namespace: ns.name });
    return lease.spec?.holderIdentity ?? undefined;
  } catch {
    return undefined;
  }
}

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("failover");
  await createWorkers(ns.name, "pool", 0);
  await createGroup(ns.name, "pool", {});
});
afterAll(async () => {
  await stopAll(operators);
  await ns.remove();
});

test("g. only the leader acts; the other takes over within 20 s of the leader's death", async () => {
  const first = startOperator({ namespace: ns.name, name: "op-a", leaderElect: true, args: RETRY });
  operators.push(first);
  await eventually("op-a to lead", async () => ((await holder())?.startsWith("op-a") ? true : undefined));
  const second = startOperator({ namespace: ns.name, name: "op-b", leaderElect: true, args: RETRY });
  operators.push(second);

  await createRequest(ns.name, "before", { instanceGroupManager: "pool", resizeBy: 2 });
  await untilState(ns.name, "before", ["SUCCEEDED"]);
  const events = await kubectl(
    "get",
    "events.events.k8s.io",
    "-n",
    ns.name,
    "-o",
    `jsonpath={range .items[?(@.reportingController=="${REPORTING_CONTROLLER}")]}{.reportingInstance}{"\\n"}{end}`,
  );
  const instances = new Set(events.trim().split("\n").filter(Boolean));
  expect(instances).toEqual(new Set(["op-a"]));

  await first.kill();
  const killedAt = Date.now();
  const lease = await eventually(
    "op-b to lead",
    async () => {
      const l = await coordination.readNamespacedLease({ name: LEASE, namespace: ns.name });
      return l.spec?.holderIdentity?.startsWith("op-b") ? l : undefined;
    },
    40_000,
  );
  // Measured by the Lease itself (when op-b acquired it), not by this test's polling.
  const acquired = lease.spec?.acquireTime ? new Date(lease.spec.acquireTime).getTime() : Date.now();
  const takeoverMs = acquired - killedAt;
  process.stderr.write(`leader takeover after SIGKILL: ${takeoverMs} ms\n`);
  expect(takeoverMs).toBeLessThan(20_000);

  await createRequest(ns.name, "after", { instanceGroupManager: "pool", resizeBy: 1 });
  await untilState(ns.name, "after", ["SUCCEEDED"]);
  expect((await replicasOf(ns.name, "pool")).replicas).toBe(3);
}, 90_000);

test("h. after an API server restart the watches resume and no update is lost", async () => {
  const dir = process.env.TESTBED_DIR;
  if (!dir) throw new Error("TESTBED_DIR is set by the global setup");
  await createRequest(ns.name, "pre-restart", { instanceGroupManager: "pool", resizeBy: 1 });
  await untilState(ns.name, "pre-restart", ["SUCCEEDED"]);
  await stopComponent(dir, "kube-apiserver");
  try {
    await new Promise((r) => setTimeout(r, 3000));
  } finally {
    startComponent(dir, "kube-apiserver");
  }
  await eventually(
    "the API server to answer again",
    async () => ((await holder()) ? true : undefined),
    60_000,
  );
  // Created right after the restart (retried while the API server still installs its paths): only a
  // re-established watch (or a relist) delivers them.
  for (const name of ["post-1", "post-2"]) {
    await eventually(`creating ${name}`, async () => {
      // A create whose answer was lost may have happened: an existing object counts.
      await createRequest(ns.name, name, { instanceGroupManager: "pool", resizeBy: 1 }).catch(() =>
        getRequest(ns.name, name),
      );
      return true;
    });
  }
  await untilState(ns.name, "post-1", ["SUCCEEDED"], 90_000);
  await untilState(ns.name, "post-2", ["SUCCEEDED"], 90_000);
  expect((await replicasOf(ns.name, "pool")).replicas).toBe(6);
}, 150_000);
