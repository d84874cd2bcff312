// b. A request that does not fit the cluster's GPUs is rolled back and retried (still ACCEPTED, with
// lastAttempt.error naming the scheduler's reason); when another request's run duration ends and
// frees GPUs, it succeeds.
import { createTestNamespace, eventually } from "../../support/kube.js";
import { installApi } from "../api/install.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import {
  core,
  createGroup,
  createRequest,
  createWorkers,
  getRequest,
  replicasOf,
  untilState,
} from "../../support/resize.js";

const TOTAL_GPUS = 32; // 4 kwok nodes × 8

let ns: Awaited<ReturnType<typeof createTestNamespace>>;
let operator: OperatorProcess;

/** GPUs held by scheduled, unfinished pods anywhere in the cluster (other test files' leftovers). */
async function gpusInUse(): Promise<number> {
  const pods = await core.listPodForAllNamespaces();
  return pods.items
    .filter((p) => p.spec?.nodeName && !["Succeeded", "Failed"].includes(p.status?.phase ?? ""))
    .flatMap((p) => p.spec?.containers ?? [])
    .reduce((sum, c) => sum + Number(c.resources?.limits?.["nvidia.com/gpu"] ?? 0), 0);
}

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("capacity");
  operator = startOperator({ namespace: ns.name, name: "capacity-op" });
});
afterAll(async () => {
  await stopAll([operator]);
  await ns.remove();
});

test("b. an attempt that does not fit is rolled back and succeeds once capacity is freed", async () => {
  await eventually(
    "a cluster with all GPUs free",
    async () => ((await gpusInUse()) === 0 ? true : undefined),
    60_000,
  );
  await createWorkers(ns.name, "trainers");
  await createGroup(ns.name, "trainers", { provisioningTimeout: "3s" });
  await createRequest(ns.name, "holder", {
    instanceGroupManager: "trainers",
    resizeBy: 24,
    requestedRunDuration: { seconds: "15" },
  });
  await untilState(ns.name, "holder", ["SUCCEEDED"]);
  await createRequest(ns.name, "waiter", { instanceGroupManager: "trainers", resizeBy: 16 });

  const failedAttempt = await eventually("a failed attempt of the waiter", async () => {
    const rr = await getRequest(ns.name, "waiter");
    return rr.status?.lastAttempt?.error ? rr : undefined;
  });
  expect(failedAttempt.status?.state).toBe("ACCEPTED");
  const error = failedAttempt.status?.lastAttempt?.error?.errors[0];
  expect(error?.code).toBe("ZONE_RESOURCE_POOL_EXHAUSTED");
  expect(error?.message).toMatch(/Insufficient nvidia\.com\/gpu/);

  // The increase was rolled back: the target is back at the holder's 24 before the holder is released.
  await eventually("the rollback", async () => {
    const rr = await getRequest(ns.name, "waiter");
    const { replicas } = await replicasOf(ns.name, "trainers");
    return rr.status?.provisioning === undefined && replicas === 24 ? true : undefined;
  });

  const done = await untilState(ns.name, "waiter", ["SUCCEEDED", "FAILED"], 90_000);
  expect(done.status?.state).toBe("SUCCEEDED");
  expect(done.status?.lastAttempt).toBeUndefined();
  expect(done.status?.attempts).toBeGreaterThan(1);
  const holder = await getRequest(ns.name, "holder");
  expect(holder.status?.release?.phase).toBe("Applied");
  expect(holder.status?.state).toBe("SUCCEEDED");
  expect(await replicasOf(ns.name, "trainers")).toEqual({ replicas: 16, ready: 16 });
  expect(TOTAL_GPUS - (await gpusInUse())).toBe(16);
}, 180_000);
