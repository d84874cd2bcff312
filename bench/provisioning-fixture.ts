// The provisioning benchmark's fixture (bench/provisioning.ts): per side, a namespace with Kueue's
// queue objects for one provisioning class (named after the namespace; the ClusterQueue held, so the
// Jobs wait un-admitted until the timed release), the N Jobs spread over 50 groups by the
// `provreq.kueue.x-k8s.io/instanceGroupManager` annotation, and — for our provider — those 50 groups
// over targets that are ready the moment they are scaled. A watch of the namespace's Kueue Workloads
// and ProvisioningRequests records when each was admitted, created and provisioned.
import type { KubeHttp } from "../src/runtime/kube-http.js";
import { Informer } from "../src/runtime/informer.js";
import { httpListWatch } from "../src/runtime/list-watch.js";
import type { KubeObject } from "../src/runtime/object.js";
import { createGroupWithTarget, creating, namespace, pool, rrPath } from "./lib.js";
import type { Sighting } from "./provisioning-figures.js";

export const GROUPS = 50;
const KUEUE_API = "/apis/kueue.x-k8s.io/v1beta2";
const QUEUE = "bench";
/** Kueue puts the flavor's node labels on the pods: no node has this one, so admitted pods wait, cheaply. */
const POOL_LABEL = "bench.resize-operator.dev/pool";
const POOL = "provisioning";

export const groupName = (i: number): string => `g${String(i % GROUPS).padStart(2, "0")}`;

interface Conditioned extends KubeObject {
  metadata?: KubeObject["metadata"] & { creationTimestamp?: string };
  status?: { conditions?: { type: string; status: string }[] };
}
const isTrue = (o: Conditioned, type: string): boolean =>
  o.status?.conditions?.some((c) => c.type === type && c.status === "True") ?? false;

/** Watches a namespace's Kueue Workloads and ProvisioningRequests; times are when this watch saw them. */
export class Sightings {
  readonly admittedAt = new Map<string, number>();
  readonly requests = new Map<string, { createdAt: number; provisionedAt?: number }>();
  private workloadsSeen = 0;
  private readonly ctl = new AbortController();
  private readonly running: Promise<void>[] = [];

  constructor(
    private readonly http: KubeHttp,
    private readonly ns: string,
  ) {}

  async start(): Promise<void> {
    const watch = (name: string, path: string, seen: (o: Conditioned) => void): Informer<Conditioned> => {
      const informer = new Informer<Conditioned>({
        name,
        listWatch: httpListWatch(this.http, path),
        decode: (raw) => raw,
      });
      informer.addEventHandler({
        onAdd: seen,
        onUpdate: (_, o) => {
          seen(o);
        },
      });
      this.running.push(informer.run(this.ctl.signal));
      return informer;
    };
    const workloads = watch("bench-workloads", `${KUEUE_API}/namespaces/${this.ns}/workloads`, (w) => {
      const uid = w.metadata?.uid ?? "";
      if (isTrue(w, "Admitted") && !this.admittedAt.has(uid)) this.admittedAt.set(uid, Date.now());
    });
    const requests = watch(
      "bench-provisioningrequests",
      `/apis/autoscaling.x-k8s.io/v1/namespaces/${this.ns}/provisioningrequests`,
      (pr) => {
        const uid = pr.metadata?.uid ?? "";
        const seen = this.requests.get(uid) ?? { createdAt: Date.now() };
        if (isTrue(pr, "Provisioned") && seen.provisionedAt === undefined) seen.provisionedAt = Date.now();
        this.requests.set(uid, seen);
      },
    );
    this.workloadsSeen = 0;
    workloads.addEventHandler({
      onAdd: () => {
        this.workloadsSeen++;
      },
    });
    await Promise.all([workloads.waitForSync(this.ctl.signal), requests.waitForSync(this.ctl.signal)]);
  }

  get workloads(): number {
    return this.workloadsSeen;
  }

  sightings(): Sighting[] {
    return [...this.requests.values()];
  }

  async stop(): Promise<void> {
    this.ctl.abort();
    await Promise.all(this.running);
  }
}

/** Resolves once `ready()` holds, polling every 100 ms; fails after `timeoutMs` saying `what`. */
export async function until(what: string, ready: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface Fixture {
  readonly ns: string;
  readonly sightings: Sightings;
  /** Lets Kueue admit (the ClusterQueue's stopPolicy None). */
  release(): Promise<void>;
  /** Deletes the namespace (waiting until it is gone) and the cluster-scoped Kueue objects. */
  remove(): Promise<void>;
}

const kueueObject = (kind: string, name: string, spec: object) => ({
  apiVersion: "kueue.x-k8s.io/v1beta2",
  kind,
  metadata: { name },
  spec,
});

function job(name: string, group: string): object {
  const requests = { cpu: "10m", memory: "16Mi" };
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name,
      labels: { "kueue.x-k8s.io/queue-name": QUEUE },
      annotations: { "provreq.kueue.x-k8s.io/instanceGroupManager": group },
    },
    spec: {
      parallelism: 1,
      completions: 1,
      template: {
        spec: {
          restartPolicy: "Never",
          containers: [{ name: "work", image: "registry.invalid/work:1", resources: { requests } }],
        },
      },
    },
  };
}

/**
 * A side's namespace, Kueue objects (its ClusterQueue held), groups when `withGroups`, and `jobs` Jobs
 * whose Workloads Kueue has created; the watch runs from before the first Job.
 */
export async function prepare(
  http: KubeHttp,
  prefix: string,
  provisioningClass: string,
  jobs: number,
  withGroups: boolean,
): Promise<Fixture> {
  const space = await namespace(http, prefix);
  const ns = space.name;
  const made: string[] = [];
  const cluster = async (plural: string, kind: string, spec: object): Promise<void> => {
    await http.request("POST", `${KUEUE_API}/${plural}`, { body: kueueObject(kind, ns, spec) });
    made.push(`${KUEUE_API}/${plural}/${ns}`);
  };
  await cluster("resourceflavors", "ResourceFlavor", { nodeLabels: { [POOL_LABEL]: POOL } });
  await cluster("provisioningrequestconfigs", "ProvisioningRequestConfig", {
    provisioningClassName: provisioningClass,
  });
  await cluster("admissionchecks", "AdmissionCheck", {
    controllerName: "kueue.x-k8s.io/provisioning-request",
    parameters: { apiGroup: "kueue.x-k8s.io", kind: "ProvisioningRequestConfig", name: ns },
  });
  const quota = { cpu: "100000", memory: "100Ti" };
  const cq = `${KUEUE_API}/clusterqueues/${ns}`;
  await cluster("clusterqueues", "ClusterQueue", {
    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
    stopPolicy: "Hold",
    resourceGroups: [
      {
        coveredResources: Object.keys(quota),
        flavors: [
          {
            name: ns,
            resources: Object.entries(quota).map(([name, nominalQuota]) => ({ name, nominalQuota })),
          },
        ],
      },
    ],
    admissionChecksStrategy: { admissionChecks: [{ name: ns }] },
  });
  await http.request("POST", `${KUEUE_API}/namespaces/${ns}/localqueues`, {
    body: { ...kueueObject("LocalQueue", QUEUE, { clusterQueue: ns }), metadata: { name: QUEUE } },
  });
  if (withGroups) {
    const shape = { allocatable: { cpu: "1", memory: "1Gi", pods: "110" }, labels: { [POOL_LABEL]: POOL } };
    const groups = Array.from({ length: GROUPS }, (_, i) => groupName(i));
    await pool(groups, 8, (g) =>
      createGroupWithTarget(http, ns, g, {
        instanceShape: shape,
        provisioningRequests: { namespaces: "Same" },
      }),
    );
  }
  const sightings = new Sightings(http, ns);
  await sightings.start();
  const names = Array.from({ length: jobs }, (_, i) => i);
  await pool(names, 8, (i) => {
    const name = `j${String(i).padStart(5, "0")}`;
    return creating(`job ${name}`, () =>
      http.request("POST", `/apis/batch/v1/namespaces/${ns}/jobs`, { body: job(name, groupName(i)) }),
    );
  });
  await until(`${jobs} Kueue Workloads in ${ns}`, () => sightings.workloads >= jobs, 600_000);
  return {
    ns,
    sightings,
    release: async () => {
      await http.request("PATCH", cq, {
        body: { spec: { stopPolicy: "None" } },
        contentType: "application/merge-patch+json",
      });
    },
    remove: async () => {
      await sightings.stop();
      // A ResizeRequest still carrying our finalizer (one mid-attempt) would hold the namespace's
      // deletion forever, the operator being stopped by now: the benchmark lets it go.
      const list = (await http.request("GET", rrPath(ns)).catch(() => ({ items: [] }))) as {
        items: { metadata: { name: string; finalizers?: string[] } }[];
      };
      await pool(
        list.items.filter((rr) => (rr.metadata.finalizers ?? []).length > 0),
        8,
        (rr) =>
          http.request("PATCH", `${rrPath(ns)}/${rr.metadata.name}`, {
            body: { metadata: { finalizers: null } },
            contentType: "application/merge-patch+json",
          }),
      );
      // Kueue removes its finalizers under its own client limit: 2,000 Jobs took more than 10 minutes.
      await space.remove(Math.max(600_000, jobs * 1000));
      for (const url of made.reverse()) await http.request("DELETE", url).catch(() => undefined);
    },
  };
}
