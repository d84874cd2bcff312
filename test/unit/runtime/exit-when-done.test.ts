// exitWhenDone (src/runtime/exit-when-done.ts), in real Node processes: one that a leaked timer keeps
// alive exits after the grace period with the code it had set and says what still ran; one whose event
// loop drains exits at once, silently (the grace timer is unref'd).
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const module = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../src/runtime/exit-when-done.ts",
);

function run(body: string): { status: number | null; stderr: string; ms: number } {
  const started = Date.now();
  const child = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      `import { exitWhenDone } from ${JSON.stringify(module)};\n${body}`,
    ],
    { encoding: "utf8", timeout: 30_000 },
  );
  return { status: child.status, stderr: child.stderr, ms: Date.now() - started };
}

test("a process kept alive by a leaked timer exits after the grace period, with its exit code", () => {
  const r = run("setInterval(() => {}, 1_000); process.exitCode = 3; exitWhenDone(300);");
  expect(r.status).toBe(3);
  expect(r.stderr).toMatch(/still running 300 ms after it was done \(.*Timeout.*\); exiting/);
});

test("a process whose event loop drains exits without waiting for the grace period", () => {
  const r = run("setTimeout(() => {}, 100); exitWhenDone(20_000);");
  expect(r.status).toBe(0);
  expect(r.stderr).toBe("");
  expect(r.ms).toBeLessThan(15_000);
});
