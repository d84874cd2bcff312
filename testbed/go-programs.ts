// Builds the Go programs of the tests (test/goclients: Google's official Go clients against the
// operator; test/linearizable: the recorder and Porcupine checker of the REST API's histories) into the
// same per-user cache as the control-plane binaries, keyed by the Go version and every file of the
// module (packages below it too), so each is compiled once per change and shared by every clone and
// run on this machine.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cacheRoot, goBuildWithProgress, lock, requireGo } from "./tools.js";

const testDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "test");

/** A Go program of the tests: its module folder under test/ (also the binary's name), and what it is for. */
interface GoProgram {
  readonly name: "goclients" | "linearizable";
  readonly purpose: string;
}

/** go.mod, go.sum and every .go file under `moduleDir`, as paths relative to it, sorted. */
function moduleFiles(moduleDir: string, dir = "."): string[] {
  return readdirSync(path.join(moduleDir, dir), { withFileTypes: true })
    .flatMap((e) => {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) return moduleFiles(moduleDir, rel);
      return e.name === "go.mod" || e.name === "go.sum" || e.name.endsWith(".go") ? [rel] : [];
    })
    .sort();
}

function cacheDir(program: GoProgram, moduleDir: string, goVersion: string): string {
  const hash = createHash("sha256");
  hash.update(goVersion);
  for (const f of moduleFiles(moduleDir)) {
    // The name too: renaming or moving code between files must not reuse a stale binary.
    hash.update(`${f}\0`);
    hash.update(readFileSync(path.join(moduleDir, f)));
    hash.update("\0");
  }
  return path.join(cacheRoot(), `${program.name}-${hash.digest("hex").slice(0, 12)}`);
}

/** Returns the path of the built program, building it first (modules through the Go module proxy). */
async function ensureGoProgram(program: GoProgram): Promise<string> {
  const moduleDir = path.join(testDir, program.name);
  const goVersion = requireGo(`test/${program.name} (${program.purpose})`);
  const dir = cacheDir(program, moduleDir, goVersion);
  const binary = path.join(dir, program.name);
  const complete = (): boolean => existsSync(path.join(dir, ".complete")) && existsSync(binary);
  if (complete()) return binary;
  mkdirSync(cacheRoot(), { recursive: true });
  // Its own lock: the program does not wait for a control-plane build, and two test runs that both
  // miss the cache build it once.
  const release = await lock(path.join(cacheRoot(), `.lock-${program.name}`));
  try {
    if (complete()) return binary;
    process.stderr.write(`[tools] building test/${program.name} into ${dir}\n`);
    const staging = `${dir}.partial-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    await goBuildWithProgress({
      label: program.name,
      cwd: moduleDir,
      pkgs: ["."],
      ldflags: [],
      out: path.join(staging, program.name),
    });
    writeFileSync(path.join(staging, ".complete"), `${goVersion}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
    return binary;
  } finally {
    release();
  }
}

export const ensureGoClients = (): Promise<string> =>
  ensureGoProgram({ name: "goclients", purpose: "the official Go clients' conformance program" });

export const ensureLinearizable = (): Promise<string> =>
  ensureGoProgram({ name: "linearizable", purpose: "the REST API's linearizability checker" });
