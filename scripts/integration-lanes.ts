// `npm run test:integration:lanes` (the integration half of `npm test`): every integration file, in
// lanes that run at the same time, each lane a jest process with its own control plane and Redis
// (test/support/lanes.ts says why that keeps each file's isolation). INTEGRATION_LANES sets how many
// (default 2, or 1 on a one-core machine). Each output line is prefixed with its lane. `--record`
// rewrites test/support/integration-seconds.json, the figures the split is made by, from this run.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { measuredSeconds, type ReportedFile } from "../test/support/lanes.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const secondsFile = path.join(root, "test/support/integration-seconds.json");
const record = process.argv.includes("--record");
const count = Number(process.env.INTEGRATION_LANES ?? Math.min(2, availableParallelism()));
if (!Number.isInteger(count) || count < 1) {
  process.stderr.write(
    `INTEGRATION_LANES must be a positive integer, not ${process.env.INTEGRATION_LANES}\n`,
  );
  process.exit(2);
}
const reports = mkdtempSync(path.join(tmpdir(), "resize-operator-lanes-"));

interface LaneResult {
  readonly lane: number;
  readonly code: number;
  readonly seconds: number;
}

const children: ReturnType<typeof spawn>[] = [];

function runLane(lane: number): Promise<LaneResult> {
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [
      "--experimental-vm-modules",
      path.join(root, "node_modules/jest/bin/jest.js"),
      "--selectProjects",
      "integration",
      "--forceExit",
      `--shard=${lane}/${count}`,
      "--json",
      `--outputFile=${path.join(reports, `lane-${lane}.json`)}`,
    ],
    { cwd: root, env: { ...process.env, INTEGRATION_LANE: String(lane) }, stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  const prefix = count > 1 ? `[lane ${lane}] ` : "";
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ] as const) {
    createInterface({ input: from }).on("line", (line) => to.write(`${prefix}${line}\n`));
  }
  return new Promise((resolve) => {
    child.on("close", (code) => {
      resolve({ lane, code: code ?? 1, seconds: Math.round((Date.now() - started) / 1000) });
    });
  });
}

// A stop reaches every lane and this script waits for them, so each lane's global teardown stops its
// control plane. Ctrl-C already goes to the whole process group; a SIGTERM is passed on.
process.on("SIGINT", () => undefined);
process.on("SIGTERM", () => {
  for (const child of children) child.kill("SIGTERM");
});

const started = Date.now();
const results = await Promise.all(Array.from({ length: count }, (_, i) => runLane(i + 1)));
for (const r of results) {
  process.stderr.write(
    `[lanes] lane ${r.lane} of ${count}: ${r.code === 0 ? "passed" : "FAILED"} in ${r.seconds} s\n`,
  );
}
process.stderr.write(`[lanes] all lanes done in ${Math.round((Date.now() - started) / 1000)} s\n`);
const failed = results.some((r) => r.code !== 0);
if (record && !failed) {
  const files = results.flatMap(
    (r) =>
      (
        JSON.parse(readFileSync(path.join(reports, `lane-${r.lane}.json`), "utf8")) as {
          testResults: ReportedFile[];
        }
      ).testResults,
  );
  writeFileSync(secondsFile, `${JSON.stringify(measuredSeconds(files, root), null, 2)}\n`);
  process.stderr.write(
    `[lanes] recorded ${files.length} files' seconds in ${path.relative(root, secondsFile)}\n`,
  );
}
rmSync(reports, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
