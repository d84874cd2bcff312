// Google's official Python client (Debian's python3-googleapi, installed by the test setup and
// .ci/run as redis-server is), unchanged, against a real operator: built with build_from_document
// from the operator's discovery document, a ServiceAccount token as the bearer token. The driving
// program is test/python/client.py; it prints PASS/FAIL per step and this test fails listing every
// FAIL and every step that did not run.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { installApi, repoRoot } from "../api/install.js";
import { createTestNamespace } from "../../support/kube.js";
import { stopAll } from "../../support/operator.js";
import { createGroup, createWorkers } from "../../support/resize.js";
import { fullAccess, serviceAccountToken, startRestOperator, type RestOperator } from "../../support/rest.js";

const run = promisify(execFile);
// Debian's interpreter: python3-googleapi installs into its dist-packages, which another python3
// first on PATH (pyenv, a virtualenv) would not see.
const PYTHON = "/usr/bin/python3";
const ZONE = "local-a";
const GROUP = "py-workers";
const STEPS = [
  "build-from-document",
  "advice-calendar-mode",
  "booking-insert",
  "booking-get",
  "booking-list",
  "booking-cancel",
  "booking-delete",
  "booking-unsupported-400",
  "insert-requestId-replay",
  "operation-wait",
  "get",
  "list-managed-instances",
  "list-paging",
  "cancel",
  "get-missing-404",
  "batch-of-2",
];

let ns: { name: string; remove: () => Promise<void> } | undefined;
let operator: RestOperator | undefined;
let token: string;

beforeAll(async () => {
  // A missing client is a failure that says what to install, never a skip.
  await run(PYTHON, ["-c", "import googleapiclient, google_auth_httplib2"]).catch((err: unknown) => {
    throw new Error(
      `${PYTHON} cannot import the official client: install the Debian package python3-googleapi ` +
        `(the test setup does when running as root): ${String(err)}`,
    );
  });
  await installApi();
  ns = await createTestNamespace("python-client");
  await createWorkers(ns.name, GROUP, 0);
  // Ten requests of one instance under maxSize 4: the last ones wait in the queue (one is cancelled).
  await createGroup(ns.name, GROUP, { zone: ZONE, maxSize: 4 });
  token = await serviceAccountToken(ns.name, "python", fullAccess([GROUP]));
  operator = await startRestOperator(ns.name, process.env.REDIS_URL ?? "");
}, 240_000);

afterAll(async () => {
  if (operator) await stopAll([operator.process]);
  await ns?.remove();
});

/** The Python block of docs/booking.md "Over REST", as written. */
function bookingExample(): string {
  const doc = readFileSync(path.join(repoRoot, "docs/booking.md"), "utf8");
  const section = doc.slice(doc.indexOf("\n## Over REST\n"));
  const code = /\n```python\n([\s\S]*?)\n```\n/.exec(section)?.[1];
  if (code === undefined) throw new Error('docs/booking.md has no python block under "Over REST"');
  return code;
}

// First, on the empty group: the booking fits, and the example cancels and deletes it again.
test("the booking example of docs/booking.md runs as written: APPROVED, then cancelled and deleted", async () => {
  if (!operator || !ns) throw new Error("set-up did not finish");
  const env = { URL: operator.baseUrl, TOKEN: token, PROJECT: ns.name, ZONE, GROUP };
  const { stdout } = await run(PYTHON, ["-c", bookingExample()], {
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
  expect(stdout.trim()).toBe("APPROVED");
}, 150_000);

test("the official Python client works unchanged: insert (replayed), wait, get, managed instances, ten pages, cancel, 404, batch", async () => {
  if (!operator || !ns) throw new Error("set-up did not finish");
  const args = [
    path.join(repoRoot, "test/python/client.py"),
    `--base=${operator.baseUrl}`,
    `--token=${token}`,
    `--project=${ns.name}`,
    `--zone=${ZONE}`,
    `--group=${GROUP}`,
  ];
  const result = await run(PYTHON, args, { timeout: 600_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: unknown) => {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
    },
  );
  process.stdout.write(result.stdout);
  const lines = result.stdout.split("\n");
  const failures = lines.filter((l) => l.startsWith("FAIL "));
  const missing = STEPS.filter(
    (s) => !lines.includes(`PASS ${s}`) && !failures.some((f) => f.startsWith(`FAIL ${s}:`)),
  );
  expect({ failures, missing, exitCode: result.code, stderr: result.stderr }).toEqual({
    failures: [],
    missing: [],
    exitCode: 0,
    stderr: "",
  });
  expect(lines.filter((l) => l.startsWith("PASS "))).toEqual(STEPS.map((s) => `PASS ${s}`));
}, 660_000);
