// `npm run check:generated` as CI runs it: passes on the committed files, fails and names the file
// after a hand edit. Runs on a temporary copy of the generated files, never on the real ones.
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { generatedFiles } from "../../../src/generate/files.js";
import { repoRoot } from "./install.js";

const run = promisify(execFile);
let copy: string;

beforeAll(() => {
  copy = mkdtempSync(path.join(tmpdir(), "check-generated-"));
  for (const file of generatedFiles()) {
    mkdirSync(path.dirname(path.join(copy, file.path)), { recursive: true });
    cpSync(path.join(repoRoot, file.path), path.join(copy, file.path));
  }
  // Rendered from the chart by `npm run generate` (scripts/install-manifests.ts), not by generatedFiles().
  cpSync(path.join(repoRoot, "manifests/install"), path.join(copy, "manifests/install"), { recursive: true });
});
afterAll(() => {
  rmSync(copy, { recursive: true, force: true });
});

async function checkGenerated(root: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      "npm",
      ["run", "--silent", "check:generated", "--", "--root", root],
      {
        cwd: repoRoot,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const { code, stdout, stderr } = err as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

test("passes on the committed generated files", async () => {
  const result = await checkGenerated(repoRoot);
  expect(result).toMatchObject({ code: 0, stdout: "generated files are up to date\n" });
});

test("fails after a hand edit of a generated file, naming it", async () => {
  expect((await checkGenerated(copy)).code).toBe(0);
  const edited = "manifests/crds/compute.resize-operator.dev_resizerequests.yaml";
  const file = path.join(copy, edited);
  writeFileSync(file, readFileSync(file, "utf8").replace("maxItems: 1000", "maxItems: 5000"));
  const result = await checkGenerated(copy);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain("generated files are stale");
  expect(result.stderr).toContain(edited);
  expect(result.stderr).not.toContain("docs/api-reference.md");
});
