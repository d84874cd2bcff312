// /metrics of a real operator process after a request SUCCEEDED: controller-runtime's reconcile and
// work-queue families, the leader gauge, and the domain metrics computed from the caches; then a
// request queued behind it shows as the head's ETA (exact: capacity frees at the first one's release).
import { freePort } from "../../../testbed/processes.js";
import { installApi } from "../api/install.js";
import { createTestNamespace, eventually } from "../../support/kube.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { createGroup, createRequest, createWorkers, getRequest, untilState } from "../../support/resize.js";

let ns: Awaited<ReturnType<typeof createTestNamespace>>;
let operator: OperatorProcess;
let port: number;

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("metrics");
  port = await freePort();
  operator = startOperator({
    namespace: ns.name,
    name: "metrics-op",
    leaderElect: true,
    args: [`--metrics-port=${port}`],
  });
});
afterAll(async () => {
  await stopAll([operator]);
  await ns.remove();
});

async function scrape(): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** The value of one series in the exposition; labels in the order the operator writes them. */
function value(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

test("after a request SUCCEEDED, /metrics reports it by name and value", async () => {
  await createWorkers(ns.name, "w", 0);
  await createGroup(ns.name, "w", { maxSize: 5 });
  await createRequest(ns.name, "one", {
    instanceGroupManager: "w",
    resizeBy: 1,
    requestedRunDuration: { seconds: "3600" },
  });
  expect((await untilState(ns.name, "one", ["SUCCEEDED", "FAILED"])).status?.state).toBe("SUCCEEDED");

  // The caches (and the last reconcile) catch up with the final status write a moment after the API
  // server has it.
  const text = await eventually("the SUCCEEDED request in the metrics", async () => {
    const t = await scrape();
    // The reconcile that sees the final state has nothing left to do: its result is "success".
    const success = value(
      t,
      'controller_runtime_reconcile_total{controller="instancegroupmanager",result="success"}',
    );
    return value(t, `resize_requests{namespace="${ns.name}",state="SUCCEEDED"}`) === 1 && (success ?? 0) > 0
      ? t
      : undefined;
  });
  expect(value(text, `resize_requests{namespace="${ns.name}",state="ACCEPTED"}`)).toBe(0);
  expect(value(text, `resize_group_queue_length{namespace="${ns.name}",group="w"}`)).toBe(0);
  // The group controller is named for the kind it reconciles (its key is a group), not "resizerequest".
  expect(text).not.toContain('controller="resizerequest"');
  expect(
    value(text, 'controller_runtime_reconcile_errors_total{controller="instancegroupmanager"}') ?? 0,
  ).toBe(0);
  expect(value(text, 'workqueue_adds_total{name="instancegroupmanager"}')).toBeGreaterThan(0);
  expect(value(text, 'workqueue_depth{name="instancegroupmanager"}')).toBeGreaterThanOrEqual(0);
  expect(
    value(text, 'controller_runtime_reconcile_time_seconds_count{controller="instancegroupmanager"}'),
  ).toBeGreaterThan(0);
  expect(value(text, `leader_election_master_status{name="${ns.name}/resize-operator-leader"}`)).toBe(1);
  expect(value(text, `resize_attempts_total{namespace="${ns.name}",outcome="started"}`)).toBe(1);
  expect(value(text, `resize_attempts_total{namespace="${ns.name}",outcome="succeeded"}`)).toBe(1);
  expect(
    value(text, `resize_provisioning_duration_seconds_count{namespace="${ns.name}",outcome="succeeded"}`),
  ).toBe(1);
  // ProvisioningStarted (admitted and started in one pass: one Event, docs/events.md) and ProvisioningSucceeded.
  expect(value(text, "resize_events_emitted_total")).toBeGreaterThanOrEqual(2);
  expect(value(text, "resize_events_dropped_total")).toBe(0);
  expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
  expect(
    value(text, `resize_queue_wait_seconds_count{namespace="${ns.name}",group="w",outcome="started"}`),
  ).toBe(1);
  // Nothing queued: no head, no ETA series.
  expect(text).not.toContain(`resize_queue_head_eta_seconds{namespace="${ns.name}"`);

  // 5 more do not fit under maxSize 5 until "one" is released in an hour: the head's ETA is exact.
  await createRequest(ns.name, "two", { instanceGroupManager: "w", resizeBy: 5 });
  const eta = await eventually("the head's ETA", async () =>
    value(await scrape(), `resize_queue_head_eta_seconds{namespace="${ns.name}",group="w",basis="exact"}`),
  );
  const { status } = await getRequest(ns.name, "one");
  // Its release at runUntil plus the attempt duration "one" took, seen from a scrape after it succeeded.
  const ms = (t: string | undefined): number => Date.parse(t ?? "");
  const took = ms(status?.succeededTime) - ms(status?.provisioningStartedTime);
  expect(eta).toBeGreaterThan(0);
  expect(eta).toBeLessThanOrEqual((ms(status?.runUntil) + took - ms(status?.succeededTime)) / 1000);
});
