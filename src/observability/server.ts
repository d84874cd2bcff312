// The /metrics endpoint on its own port (--metrics-port), served by every replica: Prometheus scrapes
// followers too (their caches, HTTP and Redis figures), and keeping it off the REST port means the
// REST API's auth, body limits and request logs never apply to scrapes.
import { createServer, type Server } from "node:http";
import type { Logger } from "pino";
import type { Runnable } from "../runtime/manager.js";
import { serveUntilAborted } from "../runtime/serve.js";
import type { PromMetrics } from "./metrics.js";

/** Serves GET /metrics on `port` (0: any free port) until the signal aborts. */
export function metricsServer(metrics: PromMetrics, port: number, log: Logger): Runnable {
  return {
    name: "metrics",
    async run(signal) {
      const server: Server = createServer((req, res) => {
        const path = (req.url ?? "/").split("?")[0];
        if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
          res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
          return;
        }
        metrics.registry.metrics().then(
          (text) => {
            res.writeHead(200, { "content-type": metrics.registry.contentType });
            res.end(req.method === "HEAD" ? undefined : text);
          },
          (err: unknown) => {
            log.error({ err }, "collecting metrics failed");
            res.writeHead(500, { "content-type": "text/plain" }).end("collecting metrics failed\n");
          },
        );
      });
      await serveUntilAborted(server, port, signal, log, "/metrics");
    },
  };
}
