// The linearizability model's own tests (test/linearizable/model, `go test`): synthetic histories the
// model must accept or refuse, every recorded violation of docs/reliability.md (V3–V12, each a history
// in model/testdata that must stay illegal), and the watch checker on sound and broken watches. Run
// here so that `npm test` (and CI) keeps them passing; they need Go, as the recorder does.
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { requireGo } from "../../testbed/tools.js";

const moduleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../linearizable");

test("the linearizability model's Go tests pass, every recorded violation still illegal", async () => {
  requireGo("test/linearizable (the linearizability model's tests)");
  const { stdout } = await promisify(execFile)("go", ["test", "-count=1", "-v", "./model/"], {
    cwd: moduleDir,
    timeout: 600_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  expect(stdout).toMatch(/^ok\s+\S+\/model/m);
  // The recorded violations are run, not skipped: 8 tests over the 10 histories in model/testdata.
  expect(stdout.match(/^--- PASS: TestRecorded\w+/gm)?.length ?? 0).toBeGreaterThanOrEqual(8);
}, 620_000);
