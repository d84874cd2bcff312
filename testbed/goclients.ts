// Builds test/goclients (the program that drives the operator with Google's official Go clients) into
// the same per-user cache as the control-plane binaries, keyed by the Go version and every file of
// the module, so it is compiled once per change and shared by every clone and run on this machine.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cacheRoot, goBuildWithProgress, lock, requireGo } from "./tools.js";

const moduleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "test", "goclients");

function cacheDir(goVersion: string): string {
  const hash = createHash("sha256");
  hash.update(goVersion);
  const files = readdirSync(moduleDir)
    .filter((f) => f === "go.mod" || f === "go.sum" || f.endsWith(".go"))
    .sort();
  for (const f of files) {
    // The name too: renaming or moving code between files must not reuse a stale binary.
    hash.update(`${f}\0`);
    hash.update(readFileSync(path.join(moduleDir, f)));
    hash.update("\0");
  }
  return path.join(cacheRoot(), `goclients-${hash.digest("hex").slice(0, 12)}`);
}

/** Returns the path of the built program, building it first (modules through the Go module proxy). */
export async function ensureGoClients(): Promise<string> {
  const goVersion = requireGo("test/goclients (the official Go clients' conformance program)");
  const dir = cacheDir(goVersion);
  const binary = path.join(dir, "goclients");
  const complete = (): boolean => existsSync(path.join(dir, ".complete")) && existsSync(binary);
  if (complete()) return binary;
  mkdirSync(cacheRoot(), { recursive: true });
  // Its own lock: the program does not wait for a control-plane build, and two test runs that both
  // miss the cache build it once.
  const release = await lock(path.join(cacheRoot(), ".lock-goclients"));
  try {
    if (complete()) return binary;
    process.stderr.write(`[tools] building test/goclients into ${dir}\n`);
    const staging = `${dir}.partial-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    await goBuildWithProgress({
      label: "goclients",
      cwd: moduleDir,
      pkgs: ["."],
      ldflags: [],
      out: path.join(staging, "goclients"),
    });
    writeFileSync(path.join(staging, ".complete"), `${goVersion}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
    return binary;
  } finally {
    release();
  }
}
