// `resize-operator run`: the manager (informers, leader election), the resize controller, the event
// recorder and the HTTP endpoints, wired from validated settings. Every replica serves HTTP; only
// the leader reconciles.
import { createServer, type Server } from "node:http";
import { KubeConfig } from "@kubernetes/client-node";
import { pino, type Logger } from "pino";
import type { Config } from "./config.js";
import { addResizeController } from "./controller/setup.js";
import { createEventRecorder, defaultReportingInstance } from "./events/recorder.js";
import { kubeEventSink } from "./events/kube-sink.js";
import { Manager } from "./runtime/manager.js";
import { shutdownOnSignals } from "./runtime/signals.js";

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { pod: defaultReportingInstance() },
    // Credentials must never reach the logs, whatever object a call site hands to the logger.
    redact: {
      paths: [
        "*.authorization",
        "*.Authorization",
        "*.token",
        "*.password",
        "*.secret",
        "*.cookie",
        "*.headers.authorization",
        "*.headers.cookie",
      ],
      censor: "[redacted]",
    },
  });
}

function loadKubeConfig(file: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  if (file) kc.loadFromFile(file);
  else if (process.env.KUBERNETES_SERVICE_HOST) kc.loadFromCluster();
  else kc.loadFromDefault();
  return kc;
}

function healthServer(
  mgr: Manager,
  port: number,
  log: Logger,
): { name: string; run(signal: AbortSignal): Promise<void> } {
  return {
    name: "http",
    async run(signal) {
      const server: Server = createServer((req, res) => {
        const path = (req.url ?? "/").split("?")[0];
        if (path === "/healthz") {
          res.writeHead(200, { "content-type": "text/plain" }).end("ok");
        } else if (path === "/readyz") {
          const ready = mgr.hasSynced();
          res
            .writeHead(ready ? 200 : 503, { "content-type": "text/plain" })
            .end(ready ? "ok" : "caches not synced");
        } else {
          res.writeHead(404, { "content-type": "application/json" }).end(
            JSON.stringify({
              error: {
                code: 404,
                message: "not found",
                errors: [{ domain: "global", reason: "notFound", message: "not found" }],
              },
            }),
          );
        }
      });
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, () => {
          resolve();
        });
      });
      log.info({ port }, "serving HTTP");
      await new Promise<void>((resolve) => {
        signal.addEventListener(
          "abort",
          () => {
            resolve();
          },
          { once: true },
        );
      });
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}

export async function runOperator(config: Config): Promise<void> {
  const log = createLogger(config["log-level"]);
  const kc = loadKubeConfig(config.kubeconfig);
  const mgr = new Manager({
    kubeConfig: kc,
    logger: log,
    gracefulShutdownTimeoutMs: config["shutdown-timeout"],
    resyncPeriodMs: 10 * 60_000,
    ...(config["leader-elect"] && {
      leaderElection: {
        namespace: config["leader-election-namespace"],
        name: config["leader-election-id"],
        timings: {
          leaseDurationMs: config["lease-duration"],
          renewDeadlineMs: config["renew-deadline"],
          retryPeriodMs: config["retry-period"],
        },
      },
    }),
  });
  const recorder = createEventRecorder({ sink: kubeEventSink(kc), logger: log });
  addResizeController(mgr, {
    recorder,
    logger: log,
    concurrency: config.concurrency,
    ...(config.namespace && { namespace: config.namespace }),
    config: {
      publicUrl: (config["public-url"] ?? `http://localhost:${config["http-port"]}`).replace(/\/+$/, ""),
      backoffBaseMs: config["attempt-backoff"],
      backoffMaxMs: config["attempt-backoff-max"],
      admissionGraceMs: config["admission-grace"],
      pollIntervalMs: config["poll-interval"],
    },
  });
  mgr.addRunnable(healthServer(mgr, config["http-port"], log), false);
  const shutdown = shutdownOnSignals();
  log.info("starting resize-operator");
  await mgr.start(shutdown.signal);
  await recorder.stop(5_000);
  shutdown.dispose();
  log.info("stopped");
}
