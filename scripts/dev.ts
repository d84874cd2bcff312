// `npm run dev`: the local cluster (left running) plus a Redis owned by this process; Ctrl-C stops Redis.
import path from "node:path";
import { localClusterUp, localDir, localKubeconfig } from "../testbed/local.js";
import { startRedis, stopRedis } from "../testbed/redis.js";

const cluster = await localClusterUp();
const redis = await startRedis({ dir: path.join(localDir, "dev") });
process.stdout.write(
  [
    "",
    "resize-operator local environment is up:",
    `  Kubernetes API: ${cluster.server}`,
    `  KUBECONFIG:     ${localKubeconfig}   (npm run kubectl -- get nodes)`,
    `  Redis:          ${redis.url}`,
    "",
    "Ctrl-C stops Redis; the cluster keeps running until `npm run cluster:down`.",
    "",
  ].join("\n"),
);
const shutdown = async (): Promise<void> => {
  await stopRedis(redis);
  process.exit(0);
};
process.on("SIGINT", () => void shutdown());
process.on("SIGTERM", () => void shutdown());
setInterval(() => undefined, 1 << 30);
