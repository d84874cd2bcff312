// Starts and stops the integration testbed. Test files read what they need from the environment:
// KUBECONFIG (admin identity on the test cluster), REDIS_URL, TESTBED_DIR.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startCluster, stopCluster } from "../../testbed/cluster.js";
import { startRedis, stopRedis, type RedisServer } from "../../testbed/redis.js";
import { ensureSystemPackages } from "../../testbed/system.js";
import { ensureTools } from "../../testbed/tools.js";

interface Running {
  dir: string;
  redis: RedisServer;
}
const holder = globalThis as { __testbed?: Running };

export async function startTestbed(): Promise<void> {
  const log = (m: string): void => {
    process.stderr.write(`[testbed] ${m}\n`);
  };
  ensureSystemPackages();
  const tools = await ensureTools();
  const dir = mkdtempSync(path.join(tmpdir(), "resize-operator-test-"));
  const started = Date.now();
  const cluster = await startCluster({ dir, tools, log });
  try {
    const redis = await startRedis({ dir });
    holder.__testbed = { dir, redis };
    log(`cluster and redis ready in ${((Date.now() - started) / 1000).toFixed(1)}s (${dir})`);
    process.env.KUBECONFIG = cluster.kubeconfig;
    process.env.REDIS_URL = redis.url;
    process.env.TESTBED_DIR = dir;
    process.env.KUBECTL = tools.paths.kubectl;
    process.env.HELM = tools.paths.helm;
  } catch (err) {
    await stopCluster(dir, true);
    throw err;
  }
}

export async function stopTestbed(): Promise<void> {
  const running = holder.__testbed;
  if (!running) return;
  await stopRedis(running.redis);
  await stopCluster(running.dir, !process.env.TESTBED_KEEP);
}
