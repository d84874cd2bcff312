// BENCH-ONLY STAND-IN, not part of the product: a simulated provisioner that answers every
// ProvisioningRequest of one class in one namespace with `Accepted=True` and `Provisioned=True` at once
// (one status write, no capacity, no queue). bench/provisioning.ts runs it as its own process, beside
// real Kueue, as the floor our provider is compared with: the same Jobs, the same Kueue, a provider
// that costs nothing but its one write per request.
//
// Usage: tsx bench/instant-provisioner.ts NAMESPACE CLASS CONCURRENCY (kubeconfig as bench/lib.ts finds
// it). Prints "ready" once its watch has listed the namespace; exits on SIGTERM.
import { ProvisioningRequest } from "../src/api/provisioning-request.js";
import { isNotFound } from "../src/runtime/api-errors.js";
import { Informer } from "../src/runtime/informer.js";
import { KubeHttp } from "../src/runtime/kube-http.js";
import { httpListWatch } from "../src/runtime/list-watch.js";
import { objectKey } from "../src/runtime/store.js";
import { kubeConfig } from "./lib.js";

const [namespace, provisioningClass, concurrencyArg] = process.argv.slice(2);
if (!namespace || !provisioningClass || !concurrencyArg)
  throw new Error("usage: instant-provisioner.ts NAMESPACE CLASS CONCURRENCY");
const concurrency = Number(concurrencyArg);

const http = new KubeHttp(kubeConfig());
const path = `/apis/autoscaling.x-k8s.io/v1/namespaces/${namespace}/provisioningrequests`;
const informer = new Informer<ProvisioningRequest>({
  name: "instant-provisioner",
  listWatch: httpListWatch(http, path),
  decode: (raw) => ProvisioningRequest.parse(raw),
});

const answered = (pr: ProvisioningRequest): boolean =>
  pr.status?.conditions?.some((c) => c.type === "Provisioned" && c.status === "True") ?? false;

const pending: string[] = [];
const queued = new Set<string>();
let active = 0;

async function answer(key: string): Promise<void> {
  const pr = informer.lister.get(key);
  if (!pr || answered(pr) || pr.metadata.deletionTimestamp) return;
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const condition = (type: string, reason: string) => ({
    type,
    status: "True",
    reason,
    message: "simulated: provisioned at once",
    lastTransitionTime: now,
    observedGeneration: pr.metadata.generation,
  });
  try {
    await http.request("PATCH", `${path}/${pr.metadata.name ?? ""}/status`, {
      body: {
        status: { conditions: [condition("Accepted", "Accepted"), condition("Provisioned", "Provisioned")] },
      },
      contentType: "application/merge-patch+json",
    });
  } catch (err) {
    if (isNotFound(err)) return; // Kueue deleted it meanwhile
    process.stderr.write(`instant-provisioner: ${key}: ${String(err)}\n`);
    setTimeout(() => {
      enqueue(key);
    }, 200);
  }
}

function pump(): void {
  while (active < concurrency && pending.length > 0) {
    const key = pending.shift() ?? "";
    active++;
    void answer(key).finally(() => {
      active--;
      queued.delete(key);
      pump();
    });
  }
}

function enqueue(key: string): void {
  if (queued.has(key)) return;
  queued.add(key);
  pending.push(key);
  pump();
}

const consider = (pr: ProvisioningRequest): void => {
  if (pr.spec.provisioningClassName === provisioningClass && !answered(pr)) enqueue(objectKey(pr));
};
informer.addEventHandler({
  onAdd: consider,
  onUpdate: (_, pr) => {
    consider(pr);
  },
});

const ctl = new AbortController();
process.on("SIGTERM", () => {
  ctl.abort();
});
const running = informer.run(ctl.signal);
await informer.waitForSync(ctl.signal);
process.stdout.write("ready\n");
await running;
