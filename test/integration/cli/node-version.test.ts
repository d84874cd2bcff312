// The bins on an unsupported Node, as a user with the machine's own `node` runs them: the project is
// compiled as for the image (tsc, tsconfig.build.json) into a temporary folder and both bins are run
// with the first `node` on PATH that is not the one npm ci installed (node_modules/.bin) — Node 20 on
// our machines — or with OLD_NODE when set. Without an older Node this test fails: it cannot prove
// the message otherwise.
import { execFile, execFileSync } from "node:child_process";
import { accessSync, constants, cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { MINIMUM_NODE_MAJOR } from "../../../src/node-version.js";

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** The machine's own node: OLD_NODE, else the first `node` on PATH outside node_modules/.bin. */
function machineNode(): string {
  if (process.env.OLD_NODE) return process.env.OLD_NODE;
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir === "" || dir.includes(`node_modules${path.sep}.bin`)) continue;
    const candidate = path.join(dir, "node");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this PATH entry
    }
  }
  throw new Error("no node on PATH besides node_modules/.bin: set OLD_NODE to a Node.js older than 22");
}

let work: string;
let oldNode: string;
let oldVersion: string;

beforeAll(async () => {
  oldNode = machineNode();
  oldVersion = execFileSync(oldNode, ["--version"], { encoding: "utf8" }).trim();
  const major = Number(/^v(\d+)\./.exec(oldVersion)?.[1]);
  if (!(major < MINIMUM_NODE_MAJOR))
    throw new Error(
      `${oldNode} is ${oldVersion}: this test needs a Node.js older than ${MINIMUM_NODE_MAJOR} (set OLD_NODE)`,
    );
  work = mkdtempSync(path.join(tmpdir(), "node-version-"));
  // The layout of the image and of a checkout: dist/ beside package.json and node_modules/.
  await run(
    process.execPath,
    [path.join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"].concat([
      "--outDir",
      path.join(work, "dist"),
      "--sourceMap",
      "false",
    ]),
    { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 },
  );
  cpSync(path.join(repoRoot, "package.json"), path.join(work, "package.json"));
  symlinkSync(path.join(repoRoot, "node_modules"), path.join(work, "node_modules"));
}, 300_000);
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function outcome(node: string, args: readonly string[]): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(node, [...args], { cwd: work });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

const expected = (): string =>
  `resize-operator needs Node.js ${MINIMUM_NODE_MAJOR} or newer (this is ${oldVersion}): `;

test.each(["dist/cli.js", "dist/kubectl-resize.js"])(
  "%s --help under the machine's old Node exits 1 with the message and no stack trace",
  async (bin) => {
    const result = await outcome(oldNode, [bin, "--help"]);
    expect(result).toEqual({ code: 1, stdout: "", stderr: expect.stringMatching(/\n$/) as string });
    expect(result.stderr.startsWith(expected())).toBe(true);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  },
);

test.each([
  ["dist/cli.js", "Usage: resize-operator <command>"],
  ["dist/kubectl-resize.js", "Usage:"],
])("%s --help under the project's Node answers as usual", async (bin, usage) => {
  const result = await outcome(process.execPath, [bin, "--help"]);
  expect(result.code).toBe(0);
  expect(result.stdout).toContain(usage);
});
