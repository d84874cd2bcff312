// `kubectl resize` as users get it: an executable named kubectl-resize on PATH (what `npm i -g` or
// `npm link` gives them; here it runs the TypeScript source on this Node, as the operator processes of
// the tests do), found by the real kubectl's plugin discovery.
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "../integration/api/install.js";

const run = promisify(execFile);

/** Writes the plugin executable into `dir` (created if need be) and returns `dir`, to put on PATH. */
export function pluginBinDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const plugin = path.join(dir, "kubectl-resize");
  const entry = path.join(repoRoot, "src/kubectl-resize.ts");
  writeFileSync(plugin, `#!/bin/sh\nexec "${process.execPath}" --import tsx "${entry}" "$@"\n`);
  chmodSync(plugin, 0o755);
  return dir;
}

export interface PluginResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `kubectl resize ARGS`: the real kubectl with the plugin of `binDir` on PATH; never rejects. */
export async function kubectlResize(binDir: string, args: readonly string[]): Promise<PluginResult> {
  const kubectl = process.env.KUBECTL;
  if (!kubectl) throw new Error("KUBECTL is set by the jest global setup");
  try {
    const { stdout, stderr } = await run(kubectl, ["resize", ...args], {
      cwd: repoRoot,
      env: { ...process.env, PATH: `${binDir}:${process.env.PATH ?? ""}` },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}
