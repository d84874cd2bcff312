// Informers against the real API server: list + watch of ConfigMaps (the list paged, and streamed as a
// watch's initial events), and relisting on 410 Gone.
import * as k8s from "@kubernetes/client-node";
import { pino } from "pino";
import { Informer } from "../../../src/runtime/informer.js";
import { ApiError, isGone } from "../../../src/runtime/api-errors.js";
import { KubeHttp } from "../../../src/runtime/kube-http.js";
import { asListed, httpListWatch, type ListWatch } from "../../../src/runtime/list-watch.js";
import { METRIC } from "../../../src/runtime/metrics.js";
import { InMemoryMetrics } from "../../support/in-memory-metrics.js";
import { objectKey } from "../../../src/runtime/store.js";
import { readClusterState } from "../../../testbed/cluster.js";
import { createTestNamespace, eventually, kubeConfig } from "../../support/kube.js";

const kc = kubeConfig();
const http = new KubeHttp(kc);
const core = kc.makeApiClient(k8s.CoreV1Api);
let ns: Awaited<ReturnType<typeof createTestNamespace>>;

beforeAll(async () => {
  ns = await createTestNamespace("runtime-inf");
});
afterAll(async () => {
  await ns.remove();
});

const path = (): string => `/api/v1/namespaces/${ns.name}/configmaps`;

/**
 * Compacts etcd up to the current revision, as the API server does every few minutes, so that every
 * older resourceVersion is gone for good; returns a resourceVersion from before the compaction.
 */
async function compactEtcd(): Promise<string> {
  const dir = process.env.TESTBED_DIR;
  if (!dir) throw new Error("TESTBED_DIR is not set");
  const etcdArg = readClusterState(dir)
    ?.processes.find((p) => p.name === "kube-apiserver")
    ?.args.find((a) => a.startsWith("--etcd-servers="));
  if (!etcdArg) throw new Error("no --etcd-servers argument recorded");
  const etcd = etcdArg.slice("--etcd-servers=".length).split(",")[0] ?? "";
  const old = await httpListWatch(http, path()).list(new AbortController().signal, asListed);
  // Two writes so that the compaction point is strictly after `old`.
  await core.createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { generateName: "bump-" } } });
  const now = await httpListWatch(http, path()).list(new AbortController().signal, asListed);
  const res = await fetch(`${etcd}/v3/kv/compaction`, {
    method: "POST",
    body: JSON.stringify({ revision: now.resourceVersion, physical: true }),
  });
  if (!res.ok) throw new Error(`etcd compaction failed: HTTP ${res.status} ${await res.text()}`);
  return old.resourceVersion;
}

test("sees adds, updates and deletes of ConfigMaps, with a working cache and index", async () => {
  await core.createNamespacedConfigMap({
    namespace: ns.name,
    body: { metadata: { name: "pre" }, data: { a: "1" } },
  });
  const informer = new Informer<k8s.V1ConfigMap>({
    name: "configmaps",
    listWatch: httpListWatch(http, path(), { pageSize: 1, streamingList: false }),
    decode: (raw) => raw,
    indexers: { byValue: (cm) => Object.values(cm.data ?? {}) },
  });
  const log: string[] = [];
  informer.addEventHandler({
    onAdd: (o) => log.push(`add ${o.metadata?.name ?? ""}`),
    onUpdate: (_o, n) => log.push(`update ${n.metadata?.name ?? ""} ${n.data?.a ?? ""}`),
    onDelete: (o) => log.push(`delete ${o.metadata?.name ?? ""}`),
  });
  const ctl = new AbortController();
  const running = informer.run(ctl.signal);
  try {
    expect(await informer.waitForSync(ctl.signal)).toBe(true);
    expect(informer.lister.get(`${ns.name}/pre`)?.data).toEqual({ a: "1" });
    await core.createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: { name: "x" }, data: { a: "1" } },
    });
    await core.patchNamespacedConfigMap(
      { name: "x", namespace: ns.name, body: { data: { a: "2" } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    await core.deleteNamespacedConfigMap({ name: "pre", namespace: ns.name });
    await eventually("all three changes", () =>
      Promise.resolve(log.includes("delete pre") ? true : undefined),
    );
    expect(log.filter((l) => !l.includes("kube-root-ca"))).toEqual([
      "add pre",
      "add x",
      "update x 2",
      "delete pre",
    ]);
    expect(informer.lister.byIndex("byValue", "2").map(objectKey)).toEqual([`${ns.name}/x`]);
    expect(informer.lister.get(`${ns.name}/pre`)).toBeUndefined();
  } finally {
    ctl.abort();
    await running;
  }
});

test("the list streams from the API server, agrees with the paged list, and the watch goes on from it", async () => {
  for (const name of ["s-1", "s-2"])
    await core.createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: { name }, data: { a: name } },
    });
  const names = (items: { metadata?: { name?: string } }[]) => items.map((o) => o.metadata?.name).sort();
  const signal = new AbortController().signal;
  const streamed = await httpListWatch(http, path()).list(signal, asListed);
  const paged = await httpListWatch(http, path(), { pageSize: 1, streamingList: false }).list(
    signal,
    asListed,
  );
  expect(streamed.streamed).toBe(true);
  expect(paged.streamed).toBeUndefined();
  expect(names(streamed.items)).toEqual(names(paged.items));
  expect(names(streamed.items)).toEqual(expect.arrayContaining(["s-1", "s-2"]));

  const informer = new Informer<k8s.V1ConfigMap>({
    name: "streamed",
    listWatch: httpListWatch(http, path()),
    decode: (raw) => raw,
  });
  const ctl = new AbortController();
  const running = informer.run(ctl.signal);
  try {
    expect(await informer.waitForSync(ctl.signal)).toBe(true);
    expect(informer.lister.get(`${ns.name}/s-2`)?.data).toEqual({ a: "s-2" });
    await core.createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name: "s-3" } } });
    await eventually("the change after the streamed list", () =>
      Promise.resolve(informer.lister.get(`${ns.name}/s-3`) ? true : undefined),
    );
  } finally {
    ctl.abort();
    await running;
  }
});

test("on 410 Gone the informer relists and delivers what changed in between", async () => {
  await core.createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name: "stale-1" } } });
  const real = httpListWatch(http, path());
  let lists = 0;
  let watches = 0;
  // This API server answers a watch from a compacted resourceVersion with the current state instead of
  // 410 (see the next test), so the 410 is injected: the first watch fails as if the server had sent
  // ERROR 410 Expired, while objects change meanwhile; the relist must find those changes.
  const goneOnce: ListWatch = {
    list: async (signal, prepare) => {
      lists++;
      return real.list(signal, prepare);
    },
    watch: async (options, onEvent) => {
      if (watches++ > 0) return real.watch(options, onEvent);
      await core.createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name: "stale-2" } } });
      await core.deleteNamespacedConfigMap({ name: "stale-1", namespace: ns.name });
      throw new ApiError(410, "Expired", "too old resource version");
    },
  };
  const metrics = new InMemoryMetrics();
  const informer = new Informer({
    name: "stale",
    listWatch: goneOnce,
    decode: (raw) => raw,
    metrics,
    logger: pino({ level: "silent" }),
  });
  const deleted: string[] = [];
  informer.addEventHandler({ onDelete: (o) => deleted.push(o.metadata?.name ?? "") });
  const ctl = new AbortController();
  const running = informer.run(ctl.signal);
  try {
    await informer.waitForSync(ctl.signal);
    await eventually("relisted and saw the changes", () =>
      Promise.resolve(
        informer.lister.get(`${ns.name}/stale-2`) && deleted.includes("stale-1") ? true : undefined,
      ),
    );
    expect(lists).toBe(2);
    expect(metrics.get(METRIC.informerRelists, { name: "stale" })).toBe(1);
    // It watches on from the relist: a later change arrives through the watch, without another list.
    await core.createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name: "stale-3" } } });
    await eventually("the watch after the relist", () =>
      Promise.resolve(informer.lister.get(`${ns.name}/stale-3`) ? true : undefined),
    );
    expect(lists).toBe(2);
  } finally {
    ctl.abort();
    await running;
  }
});

test("a watch from a resourceVersion etcd has compacted away still converges on the current state", async () => {
  const compacted = await compactEtcd();
  const lw = httpListWatch(http, path());
  const ctl = new AbortController();
  const events: string[] = [];
  const outcome = await lw
    .watch({ resourceVersion: compacted, timeoutSeconds: 3, signal: ctl.signal }, (e) => events.push(e.type))
    .then(
      () => "ended",
      (e: unknown) => (isGone(e) ? "gone" : String(e)),
    );
  ctl.abort();
  // Either answer works for the informer: 410 makes it relist; the current state arrives as events.
  expect(outcome === "gone" || events.length > 0).toBe(true);
});
