// The Dockerfile without a container engine (none exists here): its stages are performed in a
// temporary folder, one sub-folder per stage standing for that stage's WORKDIR, and the runtime stage's
// result must start and answer `--help`. What is performed and what is not:
// - COPY from the context (honouring .dockerignore) and COPY --from=<stage>: performed;
// - build stage `npm ci` (the full dev install): replaced by a link to the repository's own
//   node_modules, installed from the same package-lock.json; `npm run build`: performed;
// - deps stage `npm ci --omit=dev`: performed for real (npm may use its cache or the registry);
// - runtime stage `rm -rf` of the base image's package managers: not performed (it changes the base
//   image outside WORKDIR, not the application); the test checks it touches nothing under WORKDIR.
import { execFile } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { copyArgs, inContext, parseDockerfile, type Stage } from "./dockerfile.js";

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const dockerfile = readFileSync(path.join(repoRoot, "Dockerfile"), "utf8");
const dockerignore = readFileSync(path.join(repoRoot, ".dockerignore"), "utf8");
const stages = parseDockerfile(dockerfile);
const runtime = stages.at(-1) as Stage;
const WORKDIR = "/app";

let work: string;
const stageDir = (name: string): string => path.join(work, name);

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), "dockerfile-"));
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe("the Dockerfile's shape", () => {
  test("multi-stage on a supported Node LTS (22 or 24), ending in the runtime stage", () => {
    expect(stages.map((s) => s.name)).toEqual(["build", "deps", "runtime"]);
    for (const s of stages) expect(s.from).toMatch(/^node:(22|24)(-|$)/);
  });

  test("the runtime stage runs as a non-root numeric user and starts the built entry point", () => {
    const user = runtime.instructions.filter((i) => i.op === "USER").map((i) => i.args);
    expect(user).toHaveLength(1);
    const [uid, gid] = (user[0] ?? "").split(":").map(Number);
    expect(uid).toBeGreaterThan(0);
    expect(gid).toBeGreaterThan(0);
    const entry = runtime.instructions.find((i) => i.op === "ENTRYPOINT")?.args;
    expect(JSON.parse(entry ?? "[]")).toEqual(["node", "dist/cli.js"]);
  });

  test("the runtime stage copies no sources and installs nothing itself", () => {
    const copies = runtime.instructions.filter((i) => i.op === "COPY").map((i) => copyArgs(i.args));
    expect(copies.filter((c) => !c.from).flatMap((c) => c.sources)).toEqual(["package.json"]);
    expect(copies.filter((c) => c.from).map((c) => `${c.from ?? ""}:${c.sources.join(",")}`)).toEqual([
      "deps:/app/node_modules",
      "build:/app/dist",
    ]);
    const runs = runtime.instructions.filter((i) => i.op === "RUN").map((i) => i.args);
    for (const command of runs) expect(command).toMatch(/^rm -rf (\/(usr|opt)\/\S+\s*)+$/);
  });

  test(".dockerignore lets in exactly what the stages copy from the context", () => {
    const fromContext = stages.flatMap((s) =>
      s.instructions
        .filter((i) => i.op === "COPY")
        .map((i) => copyArgs(i.args))
        .filter((c) => !c.from)
        .flatMap((c) => c.sources),
    );
    for (const file of fromContext) expect(inContext(dockerignore, file)).toBe(true);
    for (const file of [
      "node_modules/x",
      ".git/HEAD",
      ".local/kubeconfig",
      "test/unit/x.test.ts",
      "docs/x.md",
      "charts/x",
    ])
      expect(inContext(dockerignore, file)).toBe(false);
  });
});

/** Performs one stage's instructions in its folder. */
async function perform(stage: Stage): Promise<void> {
  const dir = stageDir(stage.name);
  mkdirSync(dir, { recursive: true });
  for (const { op, args } of stage.instructions) {
    if (op === "WORKDIR") expect(args).toBe(WORKDIR);
    else if (op === "COPY") {
      const { from, sources, dest } = copyArgs(args);
      for (const source of sources) {
        const origin = from
          ? path.join(stageDir(from), path.relative(WORKDIR, source))
          : path.join(repoRoot, source);
        if (!from) expect(inContext(dockerignore, source)).toBe(true);
        const target = dest.endsWith("/")
          ? path.join(dir, dest, path.basename(source))
          : path.join(dir, dest);
        cpSync(origin, target, { recursive: true, dereference: true });
      }
    } else if (op === "RUN") {
      if (/^npm ci\b/.test(args) && !args.includes("--omit=dev")) {
        symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"));
      } else if (args.startsWith("rm -rf ")) {
        for (const target of args.split(/\s+/).slice(2)) expect(target.startsWith(`${WORKDIR}/`)).toBe(false);
      } else {
        // npm takes what it can from its cache before asking the registry.
        await run("sh", ["-c", args], {
          cwd: dir,
          env: { ...process.env, npm_config_prefer_offline: "true", npm_config_update_notifier: "false" },
          maxBuffer: 16 * 1024 * 1024,
        });
      }
    }
  }
}

test("performing the stages yields a runtime folder that starts and answers --help", async () => {
  for (const stage of stages) await perform(stage);
  const dir = stageDir(runtime.name);

  // Only the built output, production dependencies and package.json.
  expect(readdirSync(dir).sort()).toEqual(["dist", "node_modules", "package.json"]);
  expect(existsSync(path.join(dir, "dist", "cli.js"))).toBe(true);
  // The dashboard's page and styles are copied by the build; its scripts are compiled into dist/browser.
  expect(existsSync(path.join(dir, "dist", "dashboard", "ui", "index.html"))).toBe(true);
  expect(existsSync(path.join(dir, "dist", "browser", "dashboard", "ui", "app.js"))).toBe(true);
  expect(existsSync(path.join(dir, "dist", "dashboard", "ui", "app.ts"))).toBe(false);
  const lock = JSON.parse(readFileSync(path.join(repoRoot, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean }>;
  };
  const devOnly = Object.entries(lock.packages)
    .filter(([p, meta]) => p.startsWith("node_modules/") && meta.dev === true)
    .map(([p]) => p);
  expect(devOnly.length).toBeGreaterThan(0);
  expect(devOnly.filter((p) => existsSync(path.join(dir, p)))).toEqual([]);
  for (const tool of ["typescript", "tsx", "jest", "eslint", "node"])
    expect(existsSync(path.join(dir, "node_modules", tool))).toBe(false);

  const env = { ...process.env, NODE_ENV: "production" };
  const help = await run(process.execPath, ["dist/cli.js", "--help"], { cwd: dir, env });
  expect(help.stdout).toContain("Usage: resize-operator <command>");
  expect(help.stdout).toContain("--redis-url");
  const version = await run(process.execPath, ["dist/cli.js", "version"], { cwd: dir, env });
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };
  expect(version.stdout.trim()).toBe(`resize-operator ${pkg.version}`);
}, 600_000);
