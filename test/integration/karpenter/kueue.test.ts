// Kueue on Karpenter, end to end with the real Kueue (v0.17.0), the real Karpenter (v1.14.1, its kwok
// provider: testbed/karpenter.ts) and the real kube-scheduler: a Job of 4 pods × 8 GPUs on a LocalQueue
// whose admission check asks for capacity of our class → Kueue's ProvisioningRequest → our ResizeRequest
// on a group over a static NodePool (`gpu-8x`, Ready instances counted from the pool's Nodes) → 4
// Karpenter Nodes → the Job's pods Running on exactly those Nodes. A second Job queued behind it (the
// group's maxSize holds one Job's nodes) shows our exact ETA on its Workload and is admitted when it said.
// The same work runs on the testbed's own node pool in the same run, and both are timed and reported:
// ResizeRequest → 4 Nodes Ready, and Job creation → its pods Running.
import * as k8s from "@kubernetes/client-node";
import { removeKarpenterCrds, startKarpenter, type Karpenter } from "../../../testbed/karpenter.js";
import { KARPENTER, NODEPOOL_LABEL, staticNodePool } from "../../../testbed/karpenter-manifests.js";
import { ensureTools, type Toolchain } from "../../../testbed/tools.js";
import { createTestNamespace, eventually } from "../../support/kube.js";
import { isServingNode, testbedEnv } from "../../support/karpenter.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { report } from "../../support/reliability.js";
import { createGroup, createRequest, untilState } from "../../support/resize.js";
import { installApi } from "../api/install.js";
import {
  ClusterObjects,
  ourAdmissionCheck,
  queueOver,
  condition,
  core,
  createJob,
  custom,
  gpuJob,
  isTrue,
  readPr,
  readWorkload,
  removeNamespace,
  runningPods,
  startKueueStack,
  untilProvisioningRequest,
  untilResizeRequestFor,
  untilServingProvisioningRequests,
  untilWorkload,
} from "../kueue/support.js";

/** The operator's --poll-interval in tests (test/support/operator.ts). */
const POLL_MS = 250;
const GPU_TAINTS = [{ key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" as const }];
/** What a Karpenter `gpu-8x` Node offers: the shape less Karpenter's kube-reserved (docs/testbed.md). */
const KARPENTER_GPU = { cpu: "31900m", memory: "262134Mi", "nvidia.com/gpu": "8", pods: "110" };
const HOME_GPU = { cpu: "32", memory: "256Gi", "nvidia.com/gpu": "8", pods: "110" };
const HOME_LABEL = "example.com/pool";
/** Karpenter's NodePools are cluster-scoped: one name each for this file. */
const POOLS = { gpu: "kueue-gpu", plain: "kueue-plain" } as const;

let tools: Toolchain;
let karpenter: Karpenter | undefined;
let stack: Awaited<ReturnType<typeof startKueueStack>> | undefined;
let ns: Awaited<ReturnType<typeof createTestNamespace>> | undefined;
let operator: OperatorProcess | undefined;
const cluster = new ClusterObjects();
const name = (): string => ns?.name ?? "";

/** A pool's Nodes: Karpenter's by `karpenter.sh/nodepool`, the testbed's by their pool's label. */
const nodesOf = async (selector: string): Promise<k8s.V1Node[]> =>
  (await core.listNode({ labelSelector: selector })).items;
const podNodes = (pods: readonly k8s.V1Pod[]): string[] => pods.map((p) => p.spec?.nodeName ?? "").sort();
const nodeNames = (nodes: readonly k8s.V1Node[]): string[] => nodes.map((n) => n.metadata?.name ?? "").sort();

async function karpenterGroup(group: string, pool: string, shape: boolean): Promise<void> {
  await custom.createClusterCustomObject({
    ...KARPENTER,
    body: staticNodePool(pool, {
      instanceType: "gpu-8x",
      // Room for the Nodes a release is still draining: with limits.nodes at maxSize, the next request's
      // NodeClaims wait for them to go, and Karpenter retries a pool at its limit only every ~30 s.
      maxNodes: 8,
      ...(shape && { taints: GPU_TAINTS }),
    }),
  });
  await createGroup(name(), group, {
    targetRef: { apiVersion: `${KARPENTER.group}/${KARPENTER.version}`, kind: "NodePool", name: pool },
    maxSize: 4,
    readiness: { nodeSelector: { [NODEPOOL_LABEL]: pool } },
    ...(shape && {
      instanceShape: { allocatable: KARPENTER_GPU, labels: { [NODEPOOL_LABEL]: pool }, taints: GPU_TAINTS },
      provisioningRequests: { namespaces: "Same" },
    }),
  });
}

/** The testbed's NodePool (namespaced) and a group over it, as test/integration/kueue/ uses them. */
async function homeGroup(group: string, shape: boolean): Promise<void> {
  const labels = { [HOME_LABEL]: `${name()}-${group}` };
  const taints = shape ? GPU_TAINTS : [];
  await custom.createNamespacedCustomObject({
    group: "testbed.resize-operator.dev",
    version: "v1",
    plural: "nodepools",
    namespace: name(),
    body: {
      apiVersion: "testbed.resize-operator.dev/v1",
      kind: "NodePool",
      metadata: { name: group },
      spec: { replicas: 0, allocatable: HOME_GPU, labels, taints },
    },
  });
  await createGroup(name(), group, {
    targetRef: { apiVersion: "testbed.resize-operator.dev/v1", kind: "NodePool", name: group },
    maxSize: 4,
    ...(shape && {
      instanceShape: { allocatable: HOME_GPU, labels, taints },
      provisioningRequests: { namespaces: "Same" },
    }),
  });
}

/** A ResourceFlavor for a pool's nodes, a ClusterQueue over it with our admission check, a LocalQueue. */
async function queue(queueName: string, nodeLabels: Record<string, string>): Promise<void> {
  const flavor = `${name()}-${queueName}`;
  await cluster.create("ResourceFlavor", "resourceflavors", flavor, {
    nodeLabels,
    tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
  });
  await queueOver(cluster, flavor, name(), name(), queueName);
}

beforeAll(async () => {
  tools = await ensureTools();
  await installApi();
  stack = await startKueueStack(); // the ProvisioningRequest CRD and Kueue before the operator
  karpenter = await startKarpenter({
    dir: testbedEnv("TESTBED_DIR"),
    kubeconfig: testbedEnv("KUBECONFIG"),
    tools,
    log: (m) => process.stderr.write(`[karpenter] ${m}\n`),
  });
  ns = await createTestNamespace("kueue-karpenter");
  operator = startOperator({ namespace: name(), name: "kueue-karpenter" });
  await untilServingProvisioningRequests(operator);
  await karpenterGroup("karpenter-gpu", POOLS.gpu, true);
  await karpenterGroup("karpenter-plain", POOLS.plain, false);
  await homeGroup("home-gpu", true);
  await homeGroup("home-plain", false);
  await ourAdmissionCheck(cluster, name());
  await queue("karpenter", { [NODEPOOL_LABEL]: POOLS.gpu });
  await queue("home", { [HOME_LABEL]: `${name()}-home-gpu` });
}, 600_000);

afterAll(async () => {
  // Kueue's objects carry its finalizers: the namespace (Jobs, Workloads) and the cluster-scoped
  // objects go while Kueue runs; Karpenter's Nodes while Karpenter runs (its stop deletes the pools).
  if (ns) await removeNamespace(ns);
  await cluster.deleteAll();
  if (operator) await stopAll([operator]);
  await karpenter?.stop();
  await removeKarpenterCrds(testbedEnv("KUBECONFIG"), tools);
  await stack?.stop();
}, 600_000);

/** Creates the request and times it to `size` serving Nodes of `selector` and to SUCCEEDED. */
async function timedResize(group: string, selector: string, size: number) {
  const started = Date.now();
  await createRequest(name(), `${group}-4`, {
    instanceGroupManager: group,
    resizeBy: size,
    requestedRunDuration: { seconds: "10" },
  });
  const nodes = await eventually(
    `${size} serving Nodes of ${selector}`,
    async () => {
      const list = (await nodesOf(selector)).filter(isServingNode);
      return list.length === size ? list : undefined;
    },
    120_000,
  );
  const nodesMs = Date.now() - started;
  await untilState(name(), `${group}-4`, ["SUCCEEDED"], 120_000);
  return { nodes, nodesMs, succeededMs: Date.now() - started };
}

test("ResizeRequest of 4 → 4 Nodes Ready: Karpenter's static NodePool against the testbed's pool", async () => {
  const home = await timedResize("home-plain", `${HOME_LABEL}=${name()}-home-plain`, 4);
  const karp = await timedResize("karpenter-plain", `${NODEPOOL_LABEL}=${POOLS.plain}`, 4);
  report("kueue on karpenter: ResizeRequest → 4 Nodes Ready", {
    karpenterMs: karp.nodesMs,
    karpenterSucceededMs: karp.succeededMs,
    homeMadeMs: home.nodesMs,
    homeMadeSucceededMs: home.succeededMs,
  });
  expect(karp.nodes.every((n) => n.metadata?.labels?.["node.kubernetes.io/instance-type"] === "gpu-8x")).toBe(
    true,
  );
}, 300_000);

/** A Job of 4 pods × 8 GPUs on `queueName`, followed to its 4 pods Running; creation → Running timed. */
async function jobToRunning(job: string, queueName: string, runSeconds: number) {
  const made = await createJob(
    name(),
    gpuJob(job, 4, 8, queueName, { "provreq.kueue.x-k8s.io/maxRunDurationSeconds": String(runSeconds) }),
  );
  const wl = await untilWorkload(name(), made.uid, job);
  const pr = await untilProvisioningRequest(name(), wl, job);
  const rr = await untilResizeRequestFor(name(), pr);
  const pods = await eventually(`4 Running pods of ${job}`, () => runningPods(name(), job, 4), 180_000);
  return { ...made, wl, pr, rr, pods, runningMs: Date.now() - made.created };
}

let first: Awaited<ReturnType<typeof jobToRunning>> | undefined;

test("a Job of 4 pods × 8 GPUs gets 4 Karpenter Nodes through its ProvisioningRequest, and runs on exactly those", async () => {
  const home = await jobToRunning("home-train", "home", 3600);
  expect(home.rr.spec.instanceGroupManager).toBe("home-gpu");

  const selector = `${NODEPOOL_LABEL}=${POOLS.gpu}`;
  expect(await nodesOf(selector)).toEqual([]);
  first = await jobToRunning("train", "karpenter", 45);
  expect(first.rr.spec).toMatchObject({
    instanceGroupManager: "karpenter-gpu",
    resizeBy: 4,
    requestedRunDuration: { seconds: "45" },
  });
  const rr = await untilState(name(), first.rr.metadata.name ?? "", ["SUCCEEDED"]);
  expect(rr.status?.state).toBe("SUCCEEDED");
  const provisioned = await readPr(name(), first.pr);
  expect(isTrue(provisioned, "Provisioned")).toBe(true);
  expect(provisioned.status?.provisioningClassDetails).toMatchObject({
    ResizeRequestName: first.rr.metadata.name,
    InstanceGroupManager: `${name()}/karpenter-gpu`,
  });
  // The pool had no Nodes before the Job: its 4 Nodes now are the ones the request added, each made by
  // Karpenter for one of its NodeClaims, and the Job's 4 pods run one on each of them.
  const poolNodes = (await nodesOf(selector)).filter(isServingNode);
  expect(poolNodes).toHaveLength(4);
  expect(poolNodes.every((n) => n.metadata?.labels?.["karpenter.sh/registered"] === "true")).toBe(true);
  expect(podNodes(first.pods)).toEqual(nodeNames(poolNodes));
  report("kueue on karpenter: Job created → 4 pods Running", {
    karpenterMs: first.runningMs,
    homeMadeMs: home.runningMs,
  });
}, 600_000);

test("a second Job queued behind it shows our exact ETA on its Workload, and is admitted when it said", async () => {
  if (!first) throw new Error("needs the first Job");
  const made = await createJob(
    name(),
    gpuJob("train-2", 4, 8, "karpenter", { "provreq.kueue.x-k8s.io/maxRunDurationSeconds": "20" }),
  );
  const wl = await untilWorkload(name(), made.uid, "train-2");
  const pr = await untilProvisioningRequest(name(), wl, "train-2");
  // The Workload's admission check carries our Provisioned=False message, word for word.
  const { message, provisionedMessage } = await eventually("our exact ETA on the Workload", async () => {
    const check = (await readWorkload(name(), wl)).status?.admissionChecks?.find((c) => c.name === name());
    const ours = condition(await readPr(name(), pr), "Provisioned")?.message;
    return check?.message?.includes("(exact)") && check.message === ours
      ? { message: check.message, provisionedMessage: ours }
      : undefined;
  });
  expect(message).toBe(provisionedMessage);
  expect(message).toMatch(
    new RegExp(
      `^Queued at position 1 of 1 for 4 instances of InstanceGroupManager ${name()}/karpenter-gpu; `,
    ),
  );
  const eta = Date.parse(/ETA (\S+Z) \(exact\)/.exec(message)?.[1] ?? "");
  expect(Number.isNaN(eta)).toBe(false);

  const admitted = await eventually(
    "the second Workload admitted",
    async () => {
      const fresh = await readWorkload(name(), wl);
      return isTrue(fresh, "Admitted") ? fresh : undefined;
    },
    180_000,
  );
  const admittedAt = Date.parse(condition(admitted, "Admitted")?.lastTransitionTime ?? "");
  const firstRr = await untilState(name(), first.rr.metadata.name ?? "", ["SUCCEEDED"]);
  const second = await untilState(name(), (await untilResizeRequestFor(name(), pr)).metadata.name ?? "", [
    "SUCCEEDED",
  ]);
  const ms = (t: string | undefined): number => Date.parse(t ?? "");
  const took = (s: typeof second.status): number => ms(s?.succeededTime) - ms(s?.provisioningStartedTime);
  const release = ms(firstRr.status?.runUntil);
  // Our ETA is the first request's release (its runUntil) plus the group's usual attempt, which is the
  // first request's, the group's only one so far: to the second (the message has whole seconds).
  expect(Math.abs(eta - (release + took(firstRr.status)))).toBeLessThan(1_000);
  // What the ETA takes as known happened: the second attempt started at that release, within the
  // operator's passes (the release noticed and applied, the attempt started).
  const startLag = ms(second.status?.provisioningStartedTime) - release;
  expect(startLag).toBeGreaterThanOrEqual(0);
  expect(startLag).toBeLessThanOrEqual(4 * POLL_MS + 500);
  // What it cannot know is how long Karpenter takes this time: admission is the ETA moved by the
  // difference between this attempt and the one it was modelled on, within the passes that see the
  // Nodes Ready and write Provisioned=True (4 polls), Kueue's reaction to it (a watch event: 1 s) and
  // whole-second timestamps (the ETA and Admitted: 1 s each).
  const attemptDiff = took(second.status) - took(firstRr.status);
  const miss = admittedAt - eta;
  report("kueue on karpenter: second Job admitted vs its ETA", {
    etaMissMs: miss,
    attemptDiffMs: attemptDiff,
    startLagMs: startLag,
    admittedAfterSucceededMs: admittedAt - ms(second.status?.succeededTime),
  });
  expect(Math.abs(miss - attemptDiff)).toBeLessThanOrEqual(4 * POLL_MS + 1_000 + 2_000);
  const pods = await eventually(
    "4 Running pods of train-2",
    () => runningPods(name(), "train-2", 4),
    120_000,
  );
  const poolNodes = nodeNames((await nodesOf(`${NODEPOOL_LABEL}=${POOLS.gpu}`)).filter(isServingNode));
  for (const node of podNodes(pods)) expect(poolNodes).toContain(node);
}, 600_000);
