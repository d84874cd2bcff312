// Why a selected Node does not count, in words (src/controllers/resize/held-back.ts): the sentence a waiting
// request quotes and the group's InstancesHeldBack condition, as table tests over counts.
import { InstanceGroupManagerCondition as GC } from "../../../src/api/conditions.js";
import {
  heldBackCondition,
  heldBackSentence,
  NONE_HELD_BACK,
} from "../../../src/controllers/resize/held-back.js";
import type { HeldBack, HeldBackNode } from "../../../src/targets/node-readiness.js";

const T = "example.com/t=x:NoSchedule";
const tainted = (node: string, taint = T): HeldBackNode => ({ node, reason: "UndeclaredTaint", taint });
const held = (nodes: HeldBackNode[], total = nodes.length): HeldBack => ({ total, nodes });

describe("the sentence", () => {
  test.each<[string, HeldBack, string | undefined]>([
    ["none held back", held([]), undefined],
    [
      "one Node with an undeclared taint",
      held([tainted("node-x")]),
      `1 selected Node does not count: node-x carries the taint ${T} that spec.instanceShape.taints does not declare.`,
    ],
    [
      "two Nodes with the same taint, together",
      held([tainted("node-x"), tainted("node-y")]),
      `2 selected Nodes do not count: node-x, node-y carry the taint ${T} that spec.instanceShape.taints does not declare.`,
    ],
    [
      "two different taints are told apart",
      held([tainted("a"), tainted("b", "team=a:NoExecute")]),
      `2 selected Nodes do not count: a carries the taint ${T} that spec.instanceShape.taints does not declare; b carries the taint team=a:NoExecute that spec.instanceShape.taints does not declare.`,
    ],
    [
      "every reason",
      held([
        { node: "c", reason: "Cordoned" },
        { node: "r", reason: "NotRegistered", taint: "karpenter.sh/unregistered:NoExecute" },
        { node: "s", reason: "SystemTaint", taint: "karpenter.sh/disrupted:NoSchedule" },
        { node: "d", reason: "BeingDeleted" },
        { node: "n", reason: "NotReady" },
      ]),
      "5 selected Nodes do not count: c is cordoned; r is not registered yet (taint karpenter.sh/unregistered:NoExecute); s carries the taint karpenter.sh/disrupted:NoSchedule, which the cluster sets while a Node cannot take pods; d is being deleted; n is not Ready.",
    ],
    [
      "plural verbs",
      held([
        { node: "c1", reason: "Cordoned" },
        { node: "c2", reason: "Cordoned" },
        { node: "n1", reason: "NotReady" },
        { node: "n2", reason: "NotReady" },
      ]),
      "4 selected Nodes do not count: c1, c2 are cordoned; n1, n2 are not Ready.",
    ],
    [
      "more than are named",
      held([tainted("a"), tainted("b")], 9),
      `9 selected Nodes do not count: a, b carry the taint ${T} that spec.instanceShape.taints does not declare; and 7 more.`,
    ],
  ])("%s", (_name, heldBack, sentence) => {
    expect(heldBackSentence(heldBack)).toBe(sentence);
  });
});

describe("the group's InstancesHeldBack condition", () => {
  test.each<[string, HeldBack, { status: string; reason: string }]>([
    ["none held back", held([]), { status: "False", reason: NONE_HELD_BACK }],
    // A Node not Ready yet is not held back: it is simply not ready (every scale-up has some).
    [
      "only Nodes not Ready",
      held([{ node: "n", reason: "NotReady" }]),
      { status: "False", reason: NONE_HELD_BACK },
    ],
    ["an undeclared taint", held([tainted("a")]), { status: "True", reason: "UndeclaredTaint" }],
    ["cordoned", held([{ node: "c", reason: "Cordoned" }]), { status: "True", reason: "Cordoned" }],
    [
      "registering",
      held([{ node: "r", reason: "NotRegistered", taint: "karpenter.sh/unregistered:NoExecute" }]),
      { status: "True", reason: "NotRegistered" },
    ],
    [
      "the first (most actionable) Node's reason",
      held([tainted("z"), { node: "a", reason: "Cordoned" }]),
      { status: "True", reason: "UndeclaredTaint" },
    ],
  ])("%s", (_name, heldBack, expected) => {
    const condition = heldBackCondition(heldBack);
    expect(condition).toMatchObject({ type: GC.InstancesHeldBack, ...expected });
    if (expected.status === "True") expect(condition.message).toBe(heldBackSentence(heldBack));
  });
});
