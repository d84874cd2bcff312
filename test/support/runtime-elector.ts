// A stand-alone operator process for the leader-election integration tests: a Manager with a Lease and
// one controller that reconciles the ConfigMaps of a namespace. It reports on stdout, one line each:
// "LEADING", "STOPPED-LEADING", "RECONCILED <key>", "EXITED". Exits 0 after a graceful shutdown (SIGTERM).
// Usage: tsx test/support/runtime-elector.ts <namespace> <lease-name> <identity>
import { KubeConfig } from "@kubernetes/client-node";
import { pino } from "pino";
import { Controller } from "../../src/runtime/controller.js";
import { Manager } from "../../src/runtime/manager.js";
import { shutdownOnSignals } from "../../src/runtime/signals.js";

const [namespace, leaseName, identity] = process.argv.slice(2);
if (!namespace || !leaseName || !identity) {
  process.stderr.write("usage: runtime-elector <namespace> <lease-name> <identity>\n");
  process.exit(2);
}
const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

const kc = new KubeConfig();
kc.loadFromDefault();
const manager = new Manager({
  kubeConfig: kc,
  leaderElection: { namespace, name: leaseName, identity },
  gracefulShutdownTimeoutMs: 10_000,
  // Logs go to stderr, which the test passes through; RUNTIME_LOG=debug shows every lease attempt.
  logger: pino({ level: process.env.RUNTIME_LOG ?? "info", base: { identity } }, pino.destination(2)),
});
const configMaps = manager.informer({
  name: "configmaps",
  path: `/api/v1/namespaces/${namespace}/configmaps`,
  decode: (raw) => raw,
});
const controller = new Controller({
  name: "configmaps",
  reconcile: (req) => {
    say(`RECONCILED ${req.namespace ?? ""}/${req.name}`);
    return Promise.resolve(undefined);
  },
}).watchPrimary(configMaps);
manager.addController(controller);
manager.addRunnable(
  {
    name: "announce",
    run: async (leading) => {
      say("LEADING");
      await new Promise<void>((resolve) => {
        leading.addEventListener("abort", () => {
          resolve();
        });
      });
      say("STOPPED-LEADING");
    },
  },
  true,
);

const shutdown = shutdownOnSignals();
await manager.start(shutdown.signal);
shutdown.dispose();
say("EXITED");
