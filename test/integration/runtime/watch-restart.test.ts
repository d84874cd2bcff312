// Done-when (h): a watch cut by the API server going away (here: kube-apiserver restarted) is
// re-established, and changes made right after the restart are all delivered. Kept in its own file:
// the restart disturbs every client of the shared test cluster for a few seconds.
import * as k8s from "@kubernetes/client-node";
import { pino } from "pino";
import { startComponent, stopComponent } from "../../../testbed/components.js";
import { Informer } from "../../../src/runtime/informer.js";
import { KubeHttp } from "../../../src/runtime/kube-http.js";
import { httpListWatch } from "../../../src/runtime/list-watch.js";
import { METRIC } from "../../../src/runtime/metrics.js";
import { InMemoryMetrics } from "../../support/in-memory-metrics.js";
import { createTestNamespace, eventually, kubeConfig } from "../../support/kube.js";

const kc = kubeConfig();
const http = new KubeHttp(kc);
const core = kc.makeApiClient(k8s.CoreV1Api);
let ns: Awaited<ReturnType<typeof createTestNamespace>>;

beforeAll(async () => {
  ns = await createTestNamespace("runtime-restart");
});
afterAll(async () => {
  await ns.remove();
});

async function apiServerReady(): Promise<void> {
  await eventually(
    "kube-apiserver ready again",
    async () => {
      await http.request("GET", "/readyz", { timeoutMs: 2000 });
      return true;
    },
    120_000,
  );
}

test("the informer re-watches after kube-apiserver restarts and loses no update", async () => {
  const dir = process.env.TESTBED_DIR;
  if (!dir) throw new Error("TESTBED_DIR is not set");
  const metrics = new InMemoryMetrics();
  const informer = new Informer<k8s.V1ConfigMap>({
    name: "restart",
    listWatch: httpListWatch(http, `/api/v1/namespaces/${ns.name}/configmaps`),
    decode: (raw) => raw,
    metrics,
    backoff: { initialMs: 200, maxMs: 2000, factor: 2, jitter: 0.5 },
    logger: pino({ level: "silent" }),
  });
  const seen = new Map<string, string>();
  const deleted = new Set<string>();
  const record = (o: k8s.V1ConfigMap): void => {
    seen.set(o.metadata?.name ?? "", o.data?.v ?? "");
  };
  informer.addEventHandler({
    onAdd: record,
    onUpdate: (_o, n) => {
      record(n);
    },
    onDelete: (o) => deleted.add(o.metadata?.name ?? ""),
  });
  const ctl = new AbortController();
  const running = informer.run(ctl.signal);
  try {
    await informer.waitForSync(ctl.signal);
    for (let i = 0; i < 5; i++)
      await core.createNamespacedConfigMap({
        namespace: ns.name,
        body: { metadata: { name: `cm-${i}` }, data: { v: "0" } },
      });
    await eventually("the initial objects", () => Promise.resolve(seen.size >= 5 ? true : undefined));

    try {
      await stopComponent(dir, "kube-apiserver");
    } finally {
      startComponent(dir, "kube-apiserver");
    }
    await apiServerReady();

    // Right after the restart: updates, a delete and new objects.
    for (let i = 0; i < 5; i++)
      await core.patchNamespacedConfigMap(
        { name: `cm-${i}`, namespace: ns.name, body: { data: { v: "1" } } },
        k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
      );
    await core.deleteNamespacedConfigMap({ name: "cm-0", namespace: ns.name });
    for (let i = 5; i < 10; i++)
      await core.createNamespacedConfigMap({
        namespace: ns.name,
        body: { metadata: { name: `cm-${i}` }, data: { v: "1" } },
      });

    await eventually(
      "every change after the restart",
      () => {
        const all = Array.from({ length: 10 }, (_, i) => `cm-${i}`);
        return Promise.resolve(
          all.every((n) => seen.get(n) === "1") && deleted.has("cm-0") ? true : undefined,
        );
      },
      60_000,
    );
    expect(informer.lister.get(`${ns.name}/cm-0`)).toBeUndefined();
    expect(informer.lister.get(`${ns.name}/cm-9`)?.data).toEqual({ v: "1" });
    expect(metrics.get(METRIC.informerWatchRestarts, { name: "restart" })).toBeGreaterThanOrEqual(1);
  } finally {
    ctl.abort();
    await running;
    // Whatever happened above, leave a working API server for the other test files.
    await apiServerReady();
  }
});
