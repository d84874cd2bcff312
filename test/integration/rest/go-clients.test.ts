// Google's two official Go clients, unchanged, against a real operator: the discovery-generated
// google.golang.org/api/compute/v1 and the GAPIC cloud.google.com/go/compute/apiv1 over REST, on a
// zonal and a regional group over Deployments, with a real ServiceAccount token and RBAC. The
// driving program is test/goclients (Go, built with the toolchain into the tools cache); it checks
// every answer and prints PASS/FAIL per step, and this test fails listing every FAIL.
import { spawn } from "node:child_process";
import { ensureGoClients } from "../../../testbed/go-programs.js";
import { installApi, statusMessage } from "../api/install.js";
import { createTestNamespace } from "../../support/kube.js";
import { stopAll } from "../../support/operator.js";
import { createDeployment, deployment } from "../../support/regional.js";
import { createGroup, getGroup } from "../../support/resize.js";
import { fullAccess, serviceAccountToken, startRestOperator, type RestOperator } from "../../support/rest.js";

const ZONE = "local-a";
const REGION = "local";
const ZONAL = "zonal-workers";
const REGIONAL = "regional-workers";
// Each client holds 3 instances per group (1 + 2) when it inserts a request of MAX_SIZE: admitted,
// since it fits the empty group, but queued behind them, so it can be cancelled.
const MAX_SIZE = 8;
const CLIENTS = ["discovery", "gapic"] as const;
const STEPS = [
  "insert-resizeBy",
  "insert-requestId-replay",
  "operation-wait",
  "operation-get-by-name",
  "operation-get-by-id",
  "get-by-name",
  "get-by-id",
  "managed-instances",
  "insert-instances",
  "get-instances",
  "insert-queued",
  "list-paging",
  "list-filter-name",
  "list-filter-state",
  "cancel",
  "delete",
  "get-missing-404",
];

const ADVICE_STEPS = ["new-client", "calendar-mode", "unsupported-400"];
const BOOKING_STEPS = ["new-client", "insert", "get", "list", "cancel", "delete", "unsupported-400"];

let binary: string;
let ns: { name: string; remove: () => Promise<void> } | undefined;
let operator: RestOperator | undefined;
let token: string;
/** Set-up that failed without stopping the run: reported with the program's FAIL lines. */
const setupProblems: string[] = [];

beforeAll(async () => {
  // A cold build compiles the GAPIC compute package (a few minutes on 2 cores); later runs hit the cache.
  binary = await ensureGoClients();
  await installApi();
  ns = await createTestNamespace("go-clients");
  await createDeployment(ns.name, ZONAL);
  await createGroup(ns.name, ZONAL, { zone: ZONE, targetRef: deployment(ZONAL), maxSize: MAX_SIZE });
  await createDeployment(ns.name, REGIONAL);
  // The regional group goes on even if the cluster refuses it, so the zonal half still runs and the
  // failure is reported next to the steps it breaks.
  try {
    await createGroup(ns.name, REGIONAL, {
      region: REGION,
      targetRef: deployment(REGIONAL),
      maxSize: MAX_SIZE,
    });
    const stored = await getGroup(ns.name, REGIONAL);
    const spec = stored.spec as { region?: string };
    if (spec.region !== REGION)
      setupProblems.push(`the regional group was stored without spec.region: ${JSON.stringify(stored.spec)}`);
  } catch (err) {
    setupProblems.push(`creating the regional group failed: ${statusMessage(err)}`);
  }
  token = await serviceAccountToken(ns.name, "client", fullAccess([ZONAL, REGIONAL]));
  operator = await startRestOperator(ns.name, process.env.REDIS_URL ?? "");
}, 900_000);

afterAll(async () => {
  if (operator) await stopAll([operator.process]);
  await ns?.remove();
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

test("both official Go clients work unchanged, zonal and regional", async () => {
  if (!operator || !ns) throw new Error("set-up did not finish");
  const result = await run([
    `-endpoint=${operator.baseUrl}`,
    `-token=${token}`,
    `-project=${ns.name}`,
    `-zone=${ZONE}`,
    `-region=${REGION}`,
    `-zonal-group=${ZONAL}`,
    `-regional-group=${REGIONAL}`,
    `-queue-size=${MAX_SIZE}`,
    "-prefix=go",
    "-timeout=5m",
  ]);
  process.stdout.write(result.stdout);
  const lines = result.stdout.split("\n");
  const failures = lines.filter((l) => l.startsWith("FAIL "));
  // Every step must have run and passed: a program that stopped early or skipped a step cannot pass.
  const expected = CLIENTS.flatMap((c) => [
    `PASS ${c} new-client`,
    ...["zonal", "regional"].flatMap((s) => STEPS.map((step) => `PASS ${c} ${s}/${step}`)),
    // advice.calendarMode: the discovery client's (test/goclients/advice.go).
    ...(c === "discovery" ? ADVICE_STEPS.map((step) => `PASS ${c} advice/${step}`) : []),
    // futureReservations: the discovery client's (test/goclients/booking.go).
    ...(c === "discovery" ? BOOKING_STEPS.map((step) => `PASS ${c} booking/${step}`) : []),
  ]);
  const missing = expected.filter(
    (l) => !lines.includes(l) && !failures.some((f) => f.startsWith(`FAIL ${l.slice("PASS ".length)}:`)),
  );
  expect({ setupProblems, failures, missing, exitCode: result.code, stderr: result.stderr }).toEqual({
    setupProblems: [],
    failures: [],
    missing: [],
    exitCode: 0,
    stderr: "",
  });
  expect(lines.filter((l) => l.startsWith("PASS "))).toHaveLength(expected.length);
}, 420_000);
