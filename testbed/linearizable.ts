// Builds test/linearizable (the recorder and Porcupine checker of the REST API's histories) into the
// same per-user cache as the control-plane binaries, exactly as testbed/goclients.ts builds
// test/goclients: keyed by the Go version and every file of the module (its model/ package too), so
// it is compiled once per change and shared by every clone and run on this machine.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cacheRoot, goBuildWithProgress, lock, requireGo } from "./tools.js";

const moduleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "test", "linearizable");

/** go.mod, go.sum and every .go file under the module, as paths relative to it, sorted. */
function moduleFiles(dir = "."): string[] {
  return readdirSync(path.join(moduleDir, dir), { withFileTypes: true })
    .flatMap((e) => {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) return moduleFiles(rel);
      return e.name === "go.mod" || e.name === "go.sum" || e.name.endsWith(".go") ? [rel] : [];
    })
    .sort();
}

function cacheDir(goVersion: string): string {
  const hash = createHash("sha256");
  hash.update(goVersion);
  for (const f of moduleFiles()) {
    // The name too: renaming or moving code between files must not reuse a stale binary.
    hash.update(`${f}\0`);
    hash.update(readFileSync(path.join(moduleDir, f)));
    hash.update("\0");
  }
  return path.join(cacheRoot(), `linearizable-${hash.digest("hex").slice(0, 12)}`);
}

/** Returns the path of the built program, building it first (modules through the Go module proxy). */
export async function ensureLinearizable(): Promise<string> {
  const goVersion = requireGo("test/linearizable (the REST API's linearizability checker)");
  const dir = cacheDir(goVersion);
  const binary = path.join(dir, "linearizable");
  const complete = (): boolean => existsSync(path.join(dir, ".complete")) && existsSync(binary);
  if (complete()) return binary;
  mkdirSync(cacheRoot(), { recursive: true });
  // Its own lock, as goclients has: two test runs that both miss the cache build it once.
  const release = await lock(path.join(cacheRoot(), ".lock-linearizable"));
  try {
    if (complete()) return binary;
    process.stderr.write(`[tools] building test/linearizable into ${dir}\n`);
    const staging = `${dir}.partial-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    await goBuildWithProgress({
      label: "linearizable",
      cwd: moduleDir,
      pkgs: ["."],
      ldflags: [],
      out: path.join(staging, "linearizable"),
    });
    writeFileSync(path.join(staging, ".complete"), `${goVersion}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
    return binary;
  } finally {
    release();
  }
}
