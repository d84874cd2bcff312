// TEST INFRASTRUCTURE: the testbed's Cluster API infrastructure and control-plane providers, standing in
// for a cloud's (AWS, GCP, …) as kwok stands in for kubelets: a KwokMachine's "VM" is a kwok Node. A
// long-running process, started by startClusterApi (cluster-api.ts):
//
//   node --import tsx testbed/kwok-machines.ts --kubeconfig=<admin kubeconfig> [--interval-ms=500]
//
// Every pass lists the providers' objects, the Machines and the provider's Nodes, asks plan()
// (kwok-machines-plan.ts says what each object gets, and why) what to do, and does it, logging one line
// per change. It polls rather than watches, as node-pool-controller.ts does, for the same reason: no
// watch to re-establish after an API-server restart.
import { parseArgs } from "node:util";
import * as k8s from "@kubernetes/client-node";
import { CAPI, CONTROL_PLANE, INFRA, PROVIDER_NODE_LABEL, PROVIDER_READY } from "./cluster-api-manifests.js";
import { plan, type Kind, type Obj, type Plan } from "./kwok-machines-plan.js";
import { messageOf, pollForever, say, unless, type Report } from "./poll-loop.js";

const API: Record<Kind | "Machine", { group: string; version: string; plural: string }> = {
  KwokCluster: { ...INFRA, plural: "kwokclusters" },
  KwokControlPlane: { ...CONTROL_PLANE, plural: "kwokcontrolplanes" },
  KwokMachine: { ...INFRA, plural: "kwokmachines" },
  Machine: { ...CAPI, plural: "machines" },
};
async function run(): Promise<void> {
  const { values } = parseArgs({
    options: { kubeconfig: { type: "string" }, "interval-ms": { type: "string", default: "500" } },
  });
  if (!values.kubeconfig) throw new Error("--kubeconfig is required");
  const intervalMs = Number(values["interval-ms"]);
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(values.kubeconfig);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const merge = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch);

  const list = async (kind: Kind | "Machine"): Promise<Obj[]> =>
    ((await custom.listClusterCustomObject(API[kind])) as { items?: Obj[] }).items ?? [];

  async function perform(p: Plan, report: Report): Promise<void> {
    const actions = [
      ...p.status.map(async ({ kind, namespace, name, status }) => {
        const body = { status };
        const done = await custom
          .patchNamespacedCustomObjectStatus({ ...API[kind], namespace, name, body }, merge)
          .then(() => true)
          .catch(unless(404));
        if (done) say(`${kind} ${namespace}/${name}: status ${JSON.stringify(status)}`);
      }),
      ...p.spec.map(async ({ namespace, name, spec }) => {
        const body = { spec };
        const done = await custom
          .patchNamespacedCustomObject({ ...API.KwokMachine, namespace, name, body }, merge)
          .then(() => true)
          .catch(unless(404));
        if (done) say(`KwokMachine ${namespace}/${name}: spec ${JSON.stringify(spec)}`);
      }),
      ...p.finalizers.map(async ({ namespace, name, finalizers, resourceVersion }) => {
        // With the resourceVersion read: a list changed meanwhile (409) is computed again next pass.
        const body = { metadata: { finalizers, ...(resourceVersion && { resourceVersion }) } };
        const done = await custom
          .patchNamespacedCustomObject({ ...API.KwokMachine, namespace, name, body }, merge)
          .then(() => true)
          .catch(unless(404));
        if (done) say(`KwokMachine ${namespace}/${name}: finalizers ${JSON.stringify(finalizers)}`);
      }),
      ...p.createNodes.map(async ({ owner, node }) => {
        const done = await core
          .createNode({ body: node })
          .then(() => true)
          .catch(unless(409));
        if (done) say(`created node ${node.metadata.name} for KwokMachine ${owner}`);
      }),
      ...p.deleteNodes.map(async ({ owner, node, reason }) => {
        const done = await core
          .deleteNode({ name: node })
          .then(() => true)
          .catch(unless(404));
        if (done) say(`deleted node ${node} of ${owner} (${reason})`);
      }),
    ];
    const failures = (await Promise.allSettled(actions)).filter((r) => r.status === "rejected");
    for (const failure of failures) report(`failed: ${messageOf(failure.reason)}`);
  }

  async function pass(report: Report): Promise<void> {
    // Every list must succeed: acting on a missing list of KwokMachines would delete their Nodes.
    const [clusters, controlPlanes, kwokMachines, machines, nodes] = await Promise.all([
      list("KwokCluster"),
      list("KwokControlPlane"),
      list("KwokMachine"),
      list("Machine"),
      core.listNode(),
    ]);
    const p = plan({
      clusters,
      controlPlanes,
      kwokMachines,
      machines,
      nodes: nodes.items.filter((n) => n.metadata?.labels?.[PROVIDER_NODE_LABEL] === "true"),
      allNodeNames: new Set(nodes.items.map((n) => n.metadata?.name ?? "")),
    });
    for (const line of p.waiting) report(line);
    await perform(p, report);
  }

  await pollForever(intervalMs, PROVIDER_READY, pass);
}

await run();
