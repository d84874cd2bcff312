// Builds the pinned control-plane binaries (kube-apiserver, kube-controller-manager, kube-scheduler,
// kubectl, etcd, kwok, helm), Kueue, Karpenter (its kwok provider) and Cluster API's core manager from Go modules into a per-user
// cache keyed by everything that affects the output, so every clone and every run on this machine
// shares one build. No binary is committed. What is built, and which files are copied beside it, is listed in tool-modules.ts.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  TOOL_MODULES,
  type Asset,
  type AssetName,
  type BinaryName,
  type ToolModule,
} from "./tool-modules.js";

export { KEEP_RUNNING_LABEL, kubeVersionFlags, type AssetName, type BinaryName } from "./tool-modules.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const modulesRoot = path.join(repoRoot, "hack", "tools");
const toolModulesSource = path.join(repoRoot, "testbed", "tool-modules.ts");

export function cacheRoot(): string {
  const base = process.env.XDG_CACHE_HOME ?? path.join(homedir(), ".cache");
  return path.join(base, "resize-operator", "tools");
}

/** The Go toolchain's version; `what` names what needs it in the error when Go is missing. */
export function requireGo(
  what = "the local cluster's binaries (kube-apiserver, etcd, kwok, helm, kueue, karpenter, cluster-api)",
): string {
  const go = spawnSync("go", ["env", "GOVERSION"], { encoding: "utf8" });
  if (go.error || go.status !== 0) {
    throw new Error(
      `Go is required to build ${what} but \`go\` was not found on PATH. Install Go 1.26.6 or newer and run again.`,
    );
  }
  return go.stdout.trim();
}

function moduleVersion(tool: ToolModule): string {
  const goMod = readFileSync(path.join(modulesRoot, tool.dir, "go.mod"), "utf8");
  const match = new RegExp(
    `^\\s*(?:require\\s+)?${tool.module.replace(/[./]/g, "\\$&")}\\s+(v\\S+)`,
    "m",
  ).exec(goMod);
  if (!match?.[1]) throw new Error(`hack/tools/${tool.dir}/go.mod does not require ${tool.module}`);
  return match[1];
}

function toolDir(tool: ToolModule, goVersion: string): { dir: string; version: string } {
  const version = moduleVersion(tool);
  const hash = createHash("sha256");
  hash.update(goVersion);
  for (const f of ["go.mod", "go.sum"]) hash.update(readFileSync(path.join(modulesRoot, tool.dir, f)));
  hash.update(JSON.stringify(tool.ldflags(version)));
  hash.update(JSON.stringify(tool.binaries));
  // Which files each asset takes from which module (their contents are fixed by go.sum, hashed above)
  // and, when one is edited, the source of tool-modules.ts where the edits are written: a function's
  // compiled text differs between tsx and ts-jest, so it cannot be the key.
  const assets = Object.entries(tool.assets ?? {}).sort(([a], [b]) => a.localeCompare(b));
  for (const [name, asset] of assets)
    hash.update(JSON.stringify({ name, module: asset.module, files: asset.files }));
  if (assets.some(([, asset]) => asset.edit)) hash.update(readFileSync(toolModulesSource));
  const key = `${tool.dir}-${version}-${hash.digest("hex").slice(0, 12)}`;
  return { dir: path.join(cacheRoot(), key), version };
}

function goIn(dir: string, args: string[]): string {
  const res = spawnSync("go", args, { cwd: dir, encoding: "utf8", maxBuffer: 64 << 20 });
  if (res.status !== 0) throw new Error(`go ${args.join(" ")} failed in ${dir}:\n${res.stderr}`);
  return res.stdout;
}

/** Runs `go build -v` and turns its per-package lines into a progress line every few seconds. */
async function buildWithProgress(tool: ToolModule, version: string, outDir: string): Promise<void> {
  const pkgs = Object.values(tool.binaries);
  await goBuildWithProgress({
    label: `${tool.dir} ${version}`,
    cwd: path.join(modulesRoot, tool.dir),
    pkgs,
    ldflags: tool.ldflags(version),
    out: outDir + path.sep,
  });
  // `go build -o dir/` names a binary after its package, which for module roots such as
  // go.etcd.io/etcd/server/v3 is not the tool's name.
  for (const [name, pkg] of Object.entries(tool.binaries)) {
    const parts = pkg.split("/");
    const last = parts.at(-1) ?? "";
    const built = /^v\d+$/.test(last) ? (parts.at(-2) ?? last) : last;
    if (built !== name) renameSync(path.join(outDir, built), path.join(outDir, name));
  }
}

export interface GoBuild {
  /** Names the build in progress lines: `[tools] <label>: ...`. */
  readonly label: string;
  /** The folder holding the go.mod the packages are built with. */
  readonly cwd: string;
  readonly pkgs: readonly string[];
  readonly ldflags: readonly string[];
  /** `go build -o`: a file, or a folder when it ends with a path separator. */
  readonly out: string;
}

/**
 * `go build -v` (stripped) of `pkgs`, reporting `compiled/total` packages every 15 s on stderr and the
 * build time at the end, so a cold build of minutes is visibly alive. Fails with go's own errors.
 */
export async function goBuildWithProgress(build: GoBuild): Promise<void> {
  const { label, cwd, pkgs } = build;
  const total = goIn(cwd, ["list", "-deps", ...pkgs])
    .split("\n")
    .filter(Boolean).length;
  const ldflags = ["-s", "-w", ...build.ldflags].join(" ");
  const started = Date.now();
  let compiled = 0;
  let lastReport = 0;
  const report = (final = false): void => {
    const secs = Math.round((Date.now() - started) / 1000);
    process.stderr.write(
      final
        ? `[tools] ${label}: built in ${secs}s (${compiled} packages compiled, the other ${total - compiled} from Go's build cache)\n`
        : `[tools] ${label}: ${compiled}/${total} packages compiled (${Math.floor((100 * compiled) / total)}%), ${secs}s\n`,
    );
  };
  await new Promise<void>((resolve, reject) => {
    const child = spawn(
      "go",
      ["build", "-v", "-buildvcs=false", "-ldflags", ldflags, "-o", build.out, ...pkgs],
      {
        cwd,
        stdio: ["ignore", "inherit", "pipe"],
      },
    );
    let errors = "";
    let pending = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      const lines = (pending + chunk).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        if (/^[\w.~-]+(\/[\w.~+-]+)*$/.test(line)) compiled++;
        else errors += line + "\n";
      }
      if (Date.now() - lastReport > 15_000) {
        lastReport = Date.now();
        report();
      }
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`building ${label} failed (exit ${code}):\n${errors}${pending}`));
    });
  });
  report(true);
}

export interface Toolchain {
  readonly paths: Record<BinaryName, string>;
  /** Files copied from the pinned modules (tool-modules.ts), by name. */
  readonly assets: Record<AssetName, string>;
  /** kwok's stage definitions (the same as assets["kwok-stages.yaml"]). */
  readonly kwokStages: string;
}

/** Ensures every pinned binary is built (building what is missing) and returns where they are. */
export async function ensureTools(): Promise<Toolchain> {
  const goVersion = requireGo();
  mkdirSync(cacheRoot(), { recursive: true });
  const release = await lock(path.join(cacheRoot(), ".lock"));
  try {
    return await ensureLocked(goVersion);
  } finally {
    release();
  }
}

/** One builder per machine: concurrent callers (parallel test runs, scripts) wait for the first. */
export async function lock(dir: string): Promise<() => void> {
  let announced = false;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(path.join(dir, "pid"), String(process.pid));
      return () => {
        rmSync(dir, { recursive: true, force: true });
      };
    } catch {
      const holder = Number(readFileSync(path.join(dir, "pid"), { encoding: "utf8", flag: "a+" }) || "0");
      if (holder && !processAlive(holder)) {
        rmSync(dir, { recursive: true, force: true });
        continue;
      }
      if (!announced)
        process.stderr.write(`[tools] waiting for another build (pid ${holder || "?"}) to finish\n`);
      announced = true;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The folder of `module`, at the version hack/tools/<toolDir>/go.mod pins, in Go's module cache
 * (downloaded first if it is not there). Also for tests that read a pinned module's files.
 */
export function moduleDir(toolDir: string, module: string): string {
  const info = JSON.parse(goIn(path.join(modulesRoot, toolDir), ["mod", "download", "-json", module])) as {
    Dir?: string;
    Error?: string;
  };
  if (!info.Dir) throw new Error(`no folder for ${module} in Go's module cache: ${info.Error ?? "?"}`);
  return info.Dir;
}

/** An asset's text: its files (a folder: its `*.yaml` files by name) joined as one YAML stream, edited. */
function assetText(tool: ToolModule, asset: Asset): string {
  const dir = moduleDir(tool.dir, asset.module);
  const files = asset.files.flatMap((f) =>
    f.endsWith("/")
      ? readdirSync(path.join(dir, f))
          .filter((n) => n.endsWith(".yaml"))
          .sort()
          .map((n) => path.join(f, n))
      : [f],
  );
  const text = files.map((f) => readFileSync(path.join(dir, f), "utf8")).join("\n---\n");
  return asset.edit ? asset.edit(text) : text;
}

async function ensureLocked(goVersion: string): Promise<Toolchain> {
  const paths: Partial<Record<BinaryName, string>> = {};
  const assets: Partial<Record<AssetName, string>> = {};
  for (const tool of TOOL_MODULES) {
    const { dir, version } = toolDir(tool, goVersion);
    const names = Object.keys(tool.binaries) as BinaryName[];
    const assetNames = Object.keys(tool.assets ?? {}) as AssetName[];
    const complete = [".complete", ...names, ...assetNames].every((f) => existsSync(path.join(dir, f)));
    if (!complete) {
      process.stderr.write(`[tools] building ${tool.dir} ${version} (${names.join(", ")}) into ${dir}\n`);
      const staging = `${dir}.partial-${process.pid}`;
      rmSync(staging, { recursive: true, force: true });
      mkdirSync(staging, { recursive: true });
      await buildWithProgress(tool, version, staging);
      for (const [name, asset] of Object.entries(tool.assets ?? {})) {
        process.stderr.write(`[tools] ${tool.dir} ${version}: writing ${name} (from ${asset.module})\n`);
        writeFileSync(path.join(staging, name), assetText(tool, asset));
      }
      writeFileSync(path.join(staging, ".complete"), `${tool.module} ${version} ${goVersion}\n`);
      rmSync(dir, { recursive: true, force: true });
      renameSync(staging, dir);
    }
    for (const name of names) paths[name] = path.join(dir, name);
    for (const name of assetNames) assets[name] = path.join(dir, name);
  }
  const all = assets as Record<AssetName, string>;
  return { paths: paths as Record<BinaryName, string>, assets: all, kwokStages: all["kwok-stages.yaml"] };
}
