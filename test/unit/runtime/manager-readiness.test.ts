// What `/readyz` waits for: the informers registered before the manager starts, not one the leader
// creates on demand later (a target kind's, a node selector's), which nothing a replica serves reads.
import { KubeConfig } from "@kubernetes/client-node";
import { Manager } from "../../../src/runtime/manager.js";
import type { KubeObject } from "../../../src/runtime/object.js";

/** A cluster nobody listens on: the informers never sync, and nothing else is called. */
function unreachable(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "none", server: "https://127.0.0.1:1", skipTLSVerify: true }],
    users: [{ name: "nobody" }],
    contexts: [{ name: "none", cluster: "none", user: "nobody" }],
    currentContext: "none",
  });
  return kc;
}

const spec = (path: string) => ({ name: path, path, decode: (raw: KubeObject) => raw });

test("an informer registered before start keeps the replica unready until it syncs", () => {
  const mgr = new Manager({ kubeConfig: unreachable() });
  expect(mgr.hasSynced()).toBe(true);
  mgr.informer(spec("/api/v1/configmaps"));
  expect(mgr.hasSynced()).toBe(false);
});

test("an informer created after start (on demand) does not make the replica unready", async () => {
  const mgr = new Manager({ kubeConfig: unreachable() });
  const stopped = new AbortController();
  stopped.abort();
  await mgr.start(stopped.signal);
  const late = mgr.informer(spec("/api/v1/nodes"));
  expect(late.hasSynced()).toBe(false);
  expect(mgr.hasSynced()).toBe(true);
});
