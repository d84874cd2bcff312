// `npm audit --omit=dev`: no high or critical advisory in the production dependency tree. An audit
// that cannot be performed (registry unreachable, no answer) fails with npm's own message: it never
// passes silently.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { repoRoot } from "../integration/api/install.js";
import { report } from "../support/reliability.js";

const run = promisify(execFile);

interface AuditReport {
  readonly metadata?: { readonly vulnerabilities?: Readonly<Record<string, number>> };
  readonly error?: { readonly code?: string; readonly summary?: string };
}

test("npm audit --omit=dev shows no high or critical advisory", async () => {
  let stdout: string;
  try {
    ({ stdout } = await run("npm", ["audit", "--omit=dev", "--json"], {
      cwd: repoRoot,
      maxBuffer: 64 << 20,
    }));
  } catch (err) {
    // npm audit exits 1 when it finds any advisory; the JSON report is still on stdout.
    stdout = (err as { stdout?: string }).stdout ?? "";
    if (stdout.trim() === "")
      throw new Error(`npm audit could not run: ${(err as { stderr?: string }).stderr ?? String(err)}`, {
        cause: err,
      });
  }
  const result = JSON.parse(stdout) as AuditReport;
  if (result.error || !result.metadata?.vulnerabilities)
    throw new Error(
      `npm audit got no report from the registry's audit endpoint (unavailable?): ${JSON.stringify(result.error ?? result).slice(0, 500)}`,
    );
  const counts = result.metadata.vulnerabilities;
  report("npm audit --omit=dev", counts);
  expect({ high: counts.high ?? 0, critical: counts.critical ?? 0 }).toEqual({ high: 0, critical: 0 });
}, 120_000);
