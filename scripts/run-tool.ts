// `npm run kubectl -- ARGS` and `npm run helm -- ARGS`: the project's pinned binaries against the local cluster.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { localKubeconfig } from "../testbed/local.js";
import { ensureTools } from "../testbed/tools.js";

const [tool, ...args] = process.argv.slice(2);
if (tool !== "kubectl" && tool !== "helm") {
  process.stderr.write("usage: run-tool.ts kubectl|helm ARGS...\n");
  process.exit(2);
}
if (!existsSync(localKubeconfig)) {
  process.stderr.write(
    `no local cluster (${localKubeconfig} is missing): run \`npm run cluster:up\` first\n`,
  );
  process.exit(1);
}
const tools = await ensureTools();
const res = spawnSync(tools.paths[tool], args, {
  stdio: "inherit",
  env: { ...process.env, KUBECONFIG: localKubeconfig },
});
process.exit(res.status ?? 1);
