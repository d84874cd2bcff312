// `npm run cluster:up` / `npm run cluster:down`.
import { localClusterDown, localClusterUp, localKubeconfig } from "../testbed/local.js";

const command = process.argv[2];
if (command === "up") {
  const state = await localClusterUp();
  process.stdout.write(
    `API server: ${state.server}\nkubeconfig: ${localKubeconfig}\nTry: npm run kubectl -- get nodes\n`,
  );
} else if (command === "down") {
  await localClusterDown();
} else {
  process.stderr.write("usage: cluster.ts up|down\n");
  process.exitCode = 2;
}
