// The REST benchmark's baseline: a bare node:http server doing the same reads as the operator's two
// handlers and answering JSON — no auth, no routing table, no validation. Started as its own process
// by rest.ts: `tsx bench/bare-server.ts PORT REDIS_URL KUBECONFIG`.
import { createServer } from "node:http";
import { KubeConfig } from "@kubernetes/client-node";
import { Redis } from "ioredis";
import { KubeHttp } from "../src/runtime/kube-http.js";

const [port, redisUrl, kubeconfig] = process.argv.slice(2);
if (!port || !redisUrl || !kubeconfig) throw new Error("usage: bare-server.ts PORT REDIS_URL KUBECONFIG");
const redis = new Redis(redisUrl);
const kc = new KubeConfig();
kc.loadFromFile(kubeconfig);
const kube = new KubeHttp(kc);

// /op/<project>/<zone>/<name>: the Operation's JSON from Redis (zoneOperations.get's read).
// /rr/<project>/<group>/<name>: the group and the request from the API server (resizeRequests.get's reads).
createServer((req, res) => {
  const [, kind, project = "", second = "", name = ""] = (req.url ?? "").split("/");
  const answer = async (): Promise<unknown> => {
    if (kind === "op") {
      const json = await redis.get(`resize-operator:{${project}}:op:${second}:${name}`);
      return json === null ? undefined : (JSON.parse(json) as unknown);
    }
    const base = `/apis/compute.resize-operator.dev/v1/namespaces/${project}`;
    await kube.request("GET", `${base}/instancegroupmanagers/${second}`);
    return kube.request("GET", `${base}/resizerequests/${name}`);
  };
  answer().then(
    (body) => {
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    },
    (err: unknown) => {
      res.writeHead(500, { "content-type": "text/plain" }).end(String(err));
    },
  );
}).listen(Number(port), "127.0.0.1");
