// Where a group's target is read from, counted on the real API server (its apiserver_request_total, as
// the benchmark counts calls) and in the operator's /metrics: the operator runs as a ServiceAccount with
// the chart's ClusterRole, which lets it list and watch StatefulSets, so once a group's pass has made the
// kind's informer, an attempt reaches SUCCEEDED without one GET of the StatefulSet or its /scale (the
// write's Scale is built from the cached object); a custom kind granted only `get` (as the chart's
// rbac.extraTargetRules would) is read with GETs, and resize_target_reads_total says so. The operator
// polls once a minute here: a change of an idle group's StatefulSet reaches the group through the
// informer's event, not through a poll.
import { setTimeout as sleep } from "node:timers/promises";
import { apiServerCounters } from "../../../bench/lib.js";
import { freePort } from "../../../testbed/processes.js";
import { eventually, kubeConfig } from "../../support/kube.js";
import { createGroup, createRequest, createWorkers, getGroup, untilState } from "../../support/resize.js";
import { kubectl } from "../api/install.js";
import * as T from "../api/scale-targets.js";

let suite: T.TargetSuite | undefined;
let ns: T.TargetSuite["ns"];
let port: number;
const POLL_MS = 60_000;

beforeAll(async () => {
  suite = await T.openTargetSuite("target-cache", [T.WIDGET]);
  ns = suite.ns;
  port = await freePort();
  await T.startOperatorWithRules(
    suite,
    [...T.chartRules(), { apiGroups: [T.TEST_GROUP], resources: [T.WIDGET.plural], verbs: ["get"] }],
    [`--metrics-port=${port}`, `--poll-interval=${POLL_MS / 1000}s`],
  );
}, 120_000);

afterAll(async () => {
  await T.closeTargetSuite(suite);
});

/** resize_target_reads_total of `source` on the operator's /metrics (0 before the first). */
async function targetReads(source: "cache" | "api"): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`resize_target_reads_total{source="${source}"} `));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1));
}

/**
 * The API server's count of `verb` calls on `resource` by subresource ("" for the object itself), from
 * its apiserver_request_total, as the benchmark reads it (every client's calls: in this file only the
 * operator reads targets).
 */
async function served(verb: string, resource: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [key, n] of (await apiServerCounters(kubeConfig())).requests) {
    const [v = "", , r = "", sub = ""] = key.split(" ");
    if (v === verb && r === resource) counts[sub] = (counts[sub] ?? 0) + n;
  }
  return counts;
}

/** What was added to each count between two readings of `served`. */
function delta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([key, n]) => [key, n - (before[key] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );
}

/** Waits (less than a poll interval) until group "w"'s status shows `size` instances, all ready. */
async function untilGroupStatus(size: number): Promise<void> {
  await eventually(
    `group w's status to show ${String(size)} ready instances`,
    async () => {
      const status = (await getGroup(ns.name, "w")).status;
      return status?.targetSize === size && status.readyInstances === size ? status : undefined;
    },
    POLL_MS / 3,
  );
}

/** Waits until the operator has written the group's status (its first pass made the kind's informer). */
async function untilObserved(group: string): Promise<void> {
  await eventually(`group ${group} observed`, async () =>
    (await getGroup(ns.name, group)).status?.conditions?.length ? true : undefined,
  );
}

test("a StatefulSet target: an attempt reaches SUCCEEDED with no GET of it or its /scale; a change of it wakes its group", async () => {
  await createWorkers(ns.name, "w", 0);
  await createGroup(ns.name, "w", { maxSize: 5 });
  await untilObserved("w");
  // The group's first pass made the StatefulSet informer; its first list enqueues the group again, and
  // that pass reads the target from the cache. A bounded wait, not a check: the counts below are.
  for (let i = 0; i < 100 && (await targetReads("cache")) === 0; i++) await sleep(100);
  const [gets, puts] = [await served("GET", "statefulsets"), await served("PUT", "statefulsets")];
  await createRequest(ns.name, "one", { instanceGroupManager: "w", resizeBy: 2 });
  expect((await untilState(ns.name, "one", ["SUCCEEDED", "FAILED"], POLL_MS)).status?.state).toBe(
    "SUCCEEDED",
  );
  // Neither the object ("") nor its /scale ("scale") was read during the attempt.
  expect(delta(gets, await served("GET", "statefulsets"))).toEqual({});
  // One scale write, through /scale, under the cached object's resourceVersion (the other PUTs are
  // the StatefulSet controller's status writes).
  expect(delta(puts, await served("PUT", "statefulsets")).scale).toBe(1);
  expect(await targetReads("cache")).toBeGreaterThan(0);

  // Scaled by someone else while the group has nothing in play: nothing but the StatefulSet's change
  // wakes the group before the next poll (a minute away), and its status shows the new size. First the
  // group settles: its status written (at most once a second, coalesce.ts) and no pass pending.
  await untilGroupStatus(2);
  await sleep(3_000);
  await kubectl("scale", "statefulset", "w", "-n", ns.name, "--replicas=4");
  await untilGroupStatus(4);
}, 120_000);

test("a kind granted only get: read with GETs, counted as api reads, and the attempt reaches SUCCEEDED", async () => {
  const apiBefore = await targetReads("api");
  const before = await served("GET", T.WIDGET.plural);
  await T.apply("widget", [
    T.scalable(T.WIDGET, "w1", ns.name, 1),
    T.groupOver("widgets", ns.name, { kind: T.WIDGET.kind, name: "w1" }),
    T.requestFor("two", ns.name, "widgets", 2),
  ]);
  expect((await untilState(ns.name, "two", ["SUCCEEDED", "FAILED"])).status?.state).toBe("SUCCEEDED");
  expect(await T.replicasOf(T.WIDGET, "w1", ns.name)).toBe(3);
  const gets = delta(before, await served("GET", T.WIDGET.plural));
  expect(gets[""]).toBeGreaterThan(0);
  expect(gets.scale).toBeGreaterThan(0);
  expect(await targetReads("api")).toBeGreaterThan(apiBefore);
}, 120_000);
