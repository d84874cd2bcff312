// `npm run audit:prod`: `npm audit --omit=dev` must show no high or critical advisory. An audit that
// cannot be performed (the registry has no audit endpoint, or does not answer) fails with the reason:
// it never passes silently. Not part of `npm test`: the registry this project's machines reach answers
// the audit endpoint with 405, so the check runs wherever a registry with advisories is reachable.
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

interface AuditReport {
  readonly metadata?: { readonly vulnerabilities?: Readonly<Record<string, number>> };
  readonly error?: { readonly code?: string; readonly summary?: string };
}

let stdout: string;
try {
  ({ stdout } = await run("npm", ["audit", "--omit=dev", "--json"], { maxBuffer: 64 << 20 }));
} catch (err) {
  // npm audit exits 1 when it finds any advisory; the JSON report is still on stdout.
  stdout = (err as { stdout?: string }).stdout ?? "";
  if (stdout.trim() === "") {
    process.stderr.write(`npm audit could not run: ${(err as { stderr?: string }).stderr ?? String(err)}\n`);
    process.exit(2);
  }
}
const result = JSON.parse(stdout) as AuditReport;
const counts = result.metadata?.vulnerabilities;
if (result.error || !counts) {
  process.stderr.write(
    `npm audit got no report from the registry's audit endpoint: ${JSON.stringify(result.error ?? result).slice(0, 500)}\n`,
  );
  process.exit(2);
}
process.stdout.write(`npm audit --omit=dev: ${JSON.stringify(counts)}\n`);
process.exit((counts.high ?? 0) + (counts.critical ?? 0) > 0 ? 1 : 0);
