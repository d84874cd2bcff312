// The developer commands from the README, run as a newcomer would: `npm run cluster:up`,
// `npm run kubectl -- get nodes`, `npm run cluster:down` (in a temporary .local so a developer's own
// cluster is untouched).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ClusterState } from "../../testbed/cluster.js";
import { isRunning } from "../../testbed/processes.js";

const localDir = mkdtempSync(path.join(tmpdir(), "resize-operator-local-"));
const npm = (...args: string[]): { status: number | null; stdout: string; stderr: string } =>
  spawnSync("npm", ["run", "-s", ...args], {
    encoding: "utf8",
    env: { ...process.env, RESIZE_OPERATOR_LOCAL_DIR: localDir, KUBECONFIG: "" },
  });

afterAll(() => {
  npm("cluster:down");
  rmSync(localDir, { recursive: true, force: true });
});

test("cluster:up, kubectl get nodes, cluster:down leaves none of our processes running", () => {
  const up = npm("cluster:up");
  expect(up.stderr).toContain("cluster ready");
  expect(up.status).toBe(0);
  expect(existsSync(path.join(localDir, "kubeconfig"))).toBe(true);

  const again = npm("cluster:up");
  expect(again.status).toBe(0);
  expect(again.stderr).toContain("already running");

  const nodes = npm("kubectl", "--", "get", "nodes", "--no-headers");
  expect(nodes.status).toBe(0);
  const lines = nodes.stdout.trim().split("\n");
  expect(lines).toHaveLength(4);
  for (const line of lines) expect(line).toMatch(/^kwok-node-\d\s+Ready\s/);

  const state = JSON.parse(
    readFileSync(path.join(localDir, "cluster", "cluster.json"), "utf8"),
  ) as ClusterState;
  expect(state.processes.map((p) => p.name)).toEqual([
    "etcd",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
    "kwok",
  ]);
  const down = npm("cluster:down");
  expect(down.status).toBe(0);
  for (const p of state.processes) expect(isRunning(p.pid)).toBe(false);
  expect(existsSync(path.join(localDir, "kubeconfig"))).toBe(false);
});
