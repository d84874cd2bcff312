// What the operator refuses, as its owner sees it: the operator runs as a ServiceAccount with the
// chart's ClusterRole (its rules from charts/resize-operator/files/rbac/, /scale reduced to `get` so that
// an update can be forbidden too) and no cluster-scoped target kind listed. A group over a kind it may
// not read, a kind it may not scale, a cluster-scoped kind not listed, or a kind whose resource is not the
// one admission checked shows Ready=False with the reason and a Warning Event (`kubectl events`), its
// requests wait (or fail, for the kind that can never be scaled), no error is logged at every retry, and
// once the permission is granted the waiting request goes on to SUCCEEDED.
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { ErrorCode } from "../../../src/api/errors.js";
import type { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import { eventually } from "../../support/kube.js";
import { getGroup, getRequest, untilState } from "../../support/resize.js";
import { kubectl } from "../api/install.js";
import * as T from "../api/scale-targets.js";

/** Its resource is not the one guessed from its kind (octopuses). */
const OCTOPUS: T.ScalableKind = { kind: "Octopus", plural: "octopi", scope: "Namespaced" };

let suite: T.TargetSuite | undefined;
let ns: T.TargetSuite["ns"];
let gadget: string;

/** A ClusterRole with `rules`, bound to the operator's ServiceAccount. */
async function grant(name: string, rules: readonly T.Rule[]): Promise<void> {
  if (!suite) throw new Error("no suite");
  await T.grant(suite, name, rules);
}

function readyOf(group: InstanceGroupManager) {
  return group.status?.conditions?.find((c) => c.type === "Ready");
}

/** Waits until the group's Ready condition has `reason` (and a message with `says`); returns it. */
function untilReady(group: string, reason: string, says = "") {
  return eventually(`group ${group} Ready with ${reason}${says && `: ${says}`}`, async () => {
    const ready = readyOf(await getGroup(ns.name, group));
    return ready?.reason === reason && ready.message.includes(says) ? ready : undefined;
  });
}

/** `kubectl events --for igm/NAME`, as the group's owner looks. */
const eventsOf = (group: string): Promise<string> =>
  kubectl("events", "-n", ns.name, "--for", `instancegroupmanager/${group}`);

/** The operator's log lines at error level or above (pino: 50 and 60). */
function errorLines(): string[] {
  const log = suite?.operator?.log;
  if (log === undefined) throw new Error("no operator");
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((line) => /"level":(50|60)\b/.test(line));
}

beforeAll(async () => {
  suite = await T.openTargetSuite("target-access", [T.WIDGET, T.GADGET, OCTOPUS]);
  ns = suite.ns;
  gadget = `${ns.name}-g1`;
  suite.clusterObjects.push(`${T.GADGET.plural}.${T.TEST_GROUP}/${gadget}`);
  // The chart's ClusterRole, but /scale may only be read.
  const rules = T.chartRules().map((rule) =>
    rule.resources?.includes("*/scale") ? { ...rule, verbs: ["get"] } : rule,
  );
  await T.startOperatorWithRules(suite, rules, ["--cluster-scoped-targets="]);
}, 120_000);

afterAll(async () => {
  await T.closeTargetSuite(suite);
});

test("a kind the operator may not read, then not scale: the group says what to grant; the request waits and then SUCCEEDED", async () => {
  await T.apply("widget", [
    T.scalable(T.WIDGET, "w1", ns.name, 1),
    T.groupOver("widgets", ns.name, { kind: T.WIDGET.kind, name: "w1" }),
    T.requestFor("two", ns.name, "widgets", 2),
  ]);
  const get = await untilReady(
    "widgets",
    "TargetForbidden",
    `may not get widgets.${T.TEST_GROUP} "w1" in namespace ${ns.name}`,
  );
  expect(get.status).toBe("False");
  expect(get.message).toContain(
    `add {apiGroups: ["${T.TEST_GROUP}"], resources: [widgets]} to rbac.extraTargetRules`,
  );
  await eventually("the group's Warning Event", async () => {
    const events = await eventsOf("widgets");
    return /Warning\s+TargetForbidden/.test(events) ? events : undefined;
  });
  // Past the admission grace (3 s for the test operator): still waiting, not FAILED.
  await sleep(4_000);
  const waiting = await getRequest(ns.name, "two");
  expect(waiting.status).toMatchObject({ state: "CREATING", reason: "TargetForbidden" });
  expect(waiting.status?.conditions?.find((c) => c.type === "Accepted")).toMatchObject({
    status: "Unknown",
    reason: "TargetForbidden",
  });

  // Granted as the chart's rbac.extraTargetRules would: the attempt starts, and updating /scale is forbidden.
  await grant("read-widgets", [{ apiGroups: [T.TEST_GROUP], resources: [T.WIDGET.plural], verbs: ["get"] }]);
  await untilReady(
    "widgets",
    "TargetForbidden",
    `may not update widgets.${T.TEST_GROUP}/scale "w1" in namespace ${ns.name}`,
  );
  const recorded = await getRequest(ns.name, "two");
  expect(recorded.status?.provisioning).toMatchObject({
    phase: "Applying",
    baseReplicas: 1,
    targetReplicas: 3,
  });
  expect(recorded.status?.reason).toBe("TargetForbidden");
  expect(await T.replicasOf(T.WIDGET, "w1", ns.name)).toBe(1);

  await grant("scale-widgets", [
    { apiGroups: [T.TEST_GROUP], resources: [`${T.WIDGET.plural}/scale`], verbs: ["get", "update"] },
  ]);
  expect((await untilState(ns.name, "two", ["SUCCEEDED", "FAILED"])).status?.state).toBe("SUCCEEDED");
  expect(await T.replicasOf(T.WIDGET, "w1", ns.name)).toBe(3);
  expect((await untilReady("widgets", "TargetScalable")).status).toBe("True");
  expect(errorLines()).toEqual([]);
}, 120_000);

test("a cluster-scoped kind not listed: refused with what to do; its request waits; nothing is scaled", async () => {
  await T.apply("gadget", [
    T.scalable(T.GADGET, gadget, undefined, 1),
    T.groupOver("gadgets", ns.name, { kind: T.GADGET.kind, name: gadget }),
    T.requestFor("three", ns.name, "gadgets", 3),
  ]);
  const ready = await untilReady("gadgets", "ClusterScopedTargetNotAllowed");
  expect(ready.message).toContain(`Gadget.${T.TEST_GROUP} is cluster-scoped but not listed`);
  expect(ready.message).toContain(`add Gadget.${T.TEST_GROUP} to clusterScopedTargets`);
  expect(await eventsOf("gadgets")).toMatch(/Warning\s+ClusterScopedTargetNotAllowed/);
  const rr = await eventually("the request to say why it waits", async () => {
    const r = await getRequest(ns.name, "three");
    return r.status?.reason === "ClusterScopedTargetNotAllowed" ? r : undefined;
  });
  expect(rr.status?.state).toBe("CREATING");
  expect(await T.replicasOf(T.GADGET, gadget)).toBe(1);
  expect(errorLines()).toEqual([]);
});

test("a kind whose resource admission did not check: refused, and its request fails", async () => {
  await T.apply("octopus", [
    T.scalable(OCTOPUS, "o1", ns.name, 1),
    T.groupOver("octopi", ns.name, { kind: OCTOPUS.kind, name: "o1" }),
    T.requestFor("one", ns.name, "octopi", 1),
  ]);
  const ready = await untilReady("octopi", "TargetResourceMismatch");
  expect(ready.message).toContain(
    `serves kind Octopus as resource octopi.${T.TEST_GROUP}, but the admission policy checked the group's author's permission on octopuses.${T.TEST_GROUP}/scale`,
  );
  const rr = await untilState(ns.name, "one", ["FAILED", "SUCCEEDED"]);
  expect(rr.status?.error?.errors[0]?.code).toBe(ErrorCode.UNSUPPORTED_OPERATION);
  expect(await eventsOf("octopi")).toMatch(/Warning\s+TargetResourceMismatch/);
  expect(errorLines()).toEqual([]);
});
