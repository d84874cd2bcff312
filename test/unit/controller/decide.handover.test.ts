// decide(): a StatefulSet release resolved while a later request still holds pods hands the releasing
// request's surviving pods over (src/targets/instances/ordinals.ts, decide/handover.ts).
import { ResizeRequestCondition as RC } from "../../../src/api/conditions.js";
import { REQUEST_LABEL } from "../../../src/api/instance-labels.js";
import { decide } from "../../../src/controllers/resize/decide/index.js";
import { ordinalHandover } from "../../../src/targets/instances/ordinals.js";
import {
  cond,
  finalStatus,
  found,
  group,
  NAMESPACE,
  releaseOf,
  req,
  snap,
  statusOf,
  statusWrites,
} from "./builders.js";

const key = (name: string) => ({ namespace: NAMESPACE, name });
const pods = (...names: string[]) => names.map((name) => ({ kind: "Pod", name }));
const web = group({
  targetKind: "StatefulSet",
  targetName: "web",
  identity: { instances: "Pod", mechanism: "HighestOrdinals" },
});

interface Case {
  readonly why: string;
  readonly cut: number;
  readonly releasing: string[];
  readonly others: Record<string, string[]>;
  readonly want: string[][];
}

describe("ordinalHandover", () => {
  test.each<Case>([
    {
      why: "the earlier request ends first: its pods take the later one's places",
      cut: 3,
      releasing: ["web-1", "web-2"],
      others: { b: ["web-3", "web-4"] },
      want: [
        ["web-1", "b", "web-3"],
        ["web-2", "b", "web-4"],
      ],
    },
    {
      why: "the later request ends first: it took its own, nothing to hand over",
      cut: 3,
      releasing: ["web-3", "web-4"],
      others: { a: ["web-1", "web-2"] },
      want: [],
    },
    {
      why: "two later requests lose pods: lowest to lowest, so the latest keeps the highest ordinals",
      cut: 3,
      releasing: ["web-1", "web-2", "web-3"],
      others: { b: ["web-4"], c: ["web-5"] },
      want: [
        ["web-1", "b", "web-4"],
        ["web-2", "c", "web-5"],
      ],
    },
    {
      why: "a holder below the cut loses nothing",
      cut: 5,
      releasing: ["web-3", "web-5", "web-6"],
      others: { a: ["web-1", "web-2"], c: ["web-7", "web-8"] },
      want: [["web-3", "c", "web-7"]],
    },
  ])("$why", ({ cut, releasing, others, want }) => {
    const got = ordinalHandover(
      "web",
      cut,
      { request: key("x"), pods: releasing },
      Object.entries(others).map(([name, p]) => ({ request: key(name), pods: p })),
    );
    expect(got.map((h) => [h.pod, h.to.name, h.replaces])).toEqual(want);
  });
});

describe("a StatefulSet release resolved", () => {
  // a's release lowered web from 5 to 3 replicas: the StatefulSet removed web-3 and web-4, b's.
  const a = req("a", {
    run: { seconds: "60" },
    status: finalStatus("a", "SUCCEEDED", {
      instances: pods("web-1", "web-2"),
      release: releaseOf({ phase: "Applying", baseReplicas: 5, targetReplicas: 3 }),
    }),
  });
  const b = req("b", {
    status: finalStatus("b", "SUCCEEDED", { instances: pods("web-3", "web-4") }),
  });

  test("hands a's surviving pods to b: relabelled, listed, told on both", () => {
    const plan = decide(snap({ group: web, target: found(3), requests: [a, b] }));
    expect(statusOf(plan, "a").release?.phase).toBe("Applied");
    const bStatus = statusOf(plan, "b");
    expect(bStatus.instances).toEqual(pods("web-1", "web-2"));
    expect(cond(bStatus, RC.InstancesReplaced)).toMatchObject({
      status: "True",
      reason: "HighestOrdinalsFirst",
    });
    expect(plan.labels.map((w) => [w.kind, w.name, w.labels?.[REQUEST_LABEL]])).toEqual([
      ["Pod", "web-1", "b"],
      ["Pod", "web-2", "b"],
    ]);
    const notes = (name: string) =>
      plan.events
        .filter((e) => e.request === name && e.event.reason === "InstancesHandedOver")
        .map((e) => e.note);
    expect(notes("b")).toEqual([
      expect.stringContaining("this request's web-3, web-4 went, and a's web-1, web-2 took their place"),
    ]);
    expect(notes("a")).toEqual([expect.stringContaining("took web-3, web-4 of request b")]);
    // The receiver's status is written first: a conflict on it leaves a's release to be resolved again.
    expect(statusWrites(plan)).toEqual(["b", "a"]);
  });

  test("decided again from the statuses after a cut-short pass, it hands over nothing twice", () => {
    const first = decide(snap({ group: web, target: found(3), requests: [a, b] }));
    const bAfter = { ...b, status: statusOf(first, "b") };
    const again = decide(snap({ group: web, target: found(3), requests: [a, bAfter] }));
    expect(again.labels).toEqual([]);
    expect(again.events.filter((e) => e.event.reason === "InstancesHandedOver")).toEqual([]);
  });

  test("a Deployment's release hands nothing over (its own pods went)", () => {
    const deployment = group({ identity: { instances: "Pod", mechanism: "PodDeletionCost" } });
    const plan = decide(snap({ group: deployment, target: found(3), requests: [a, b] }));
    expect(plan.labels).toEqual([]);
    expect(statusWrites(plan)).toEqual(["a"]);
  });
});
