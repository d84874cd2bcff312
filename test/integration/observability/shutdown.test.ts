// SIGTERM on the leader: it stops accepting work, lets in-flight reconciles finish, releases the Lease
// (holderIdentity cleared, so a standby takes over at once instead of after the lease duration) and
// exits 0 well within the 30 s graceful-shutdown deadline.
import * as k8s from "@kubernetes/client-node";
import { installApi } from "../api/install.js";
import { createTestNamespace, eventually, kubeConfig } from "../../support/kube.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { createGroup, createRequest, createWorkers } from "../../support/resize.js";

const LEASE = "resize-operator-leader";
const coordination = kubeConfig().makeApiClient(k8s.CoordinationV1Api);

let ns: Awaited<ReturnType<typeof createTestNamespace>>;
let operator: OperatorProcess | undefined;

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("shutdown");
});
afterAll(async () => {
  if (operator) await stopAll([operator]);
  await ns.remove();
});

test("SIGTERM while leading: exit 0 within 30 s and the lease released", async () => {
  operator = startOperator({ namespace: ns.name, name: "shutdown-op", leaderElect: true });
  const holder = await eventually("the operator to lead", async () => {
    const lease = await coordination.readNamespacedLease({ name: LEASE, namespace: ns.name });
    const id = lease.spec?.holderIdentity;
    return id?.startsWith("shutdown-op_") ? id : undefined;
  });
  expect(holder).toMatch(/^shutdown-op_/);
  // Work in flight at the moment of the signal: a request whose attempt is still provisioning.
  await createWorkers(ns.name, "w", 0);
  await createGroup(ns.name, "w", { maxSize: 5 });
  await createRequest(ns.name, "r", { instanceGroupManager: "w", resizeBy: 2 });

  const started = Date.now();
  const code = await operator.stop();
  const elapsedMs = Date.now() - started;
  expect(code).toBe(0);
  expect(elapsedMs).toBeLessThan(30_000);
  const lease = await coordination.readNamespacedLease({ name: LEASE, namespace: ns.name });
  expect(lease.spec?.holderIdentity ?? "").toBe("");
});
