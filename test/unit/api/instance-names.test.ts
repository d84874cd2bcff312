// Named instances (src/api/instance-names.ts): which targets can create an instance under a name the
// request gives, and the check of a StatefulSet's next ordinals.
import {
  namingRefusal,
  nextOrdinalNames,
  nextOrdinalsMismatch,
  ordinalOf,
} from "../../../src/api/instance-names.js";

const sts = { apiVersion: "apps/v1", kind: "StatefulSet", name: "web" };

describe("ordinalOf: a pod's ordinal as a StatefulSet names it", () => {
  test.each([
    ["web-0", "web", 0],
    ["web-12", "web", 12],
    ["web-x-1", "web-x", 1],
    ["web-x-1", "web", undefined],
    ["web-01", "web", undefined],
    ["web-", "web", undefined],
    ["web-1a", "web", undefined],
    ["api-1", "web", undefined],
    ["web-1234567890", "web", undefined],
  ])("%s of %s → %s", (pod, set, ordinal) => {
    expect(ordinalOf(set, pod)).toBe(ordinal);
  });
});

describe("namingRefusal: names are honoured only where the target gives them", () => {
  test.each([
    {
      why: "a StatefulSet's pod names",
      ref: sts,
      countsNodes: false,
      names: ["web-3", "web-4"],
      refusal: undefined,
    },
    {
      why: "a name a StatefulSet would never give",
      ref: sts,
      countsNodes: false,
      names: ["web-3", "runner-a"],
      refusal: /StatefulSet web names its pods web-<ordinal>; "runner-a" cannot be one of them/,
    },
    {
      why: "a Deployment's pods get a random suffix",
      ref: { apiVersion: "apps/v1", kind: "Deployment", name: "api" },
      countsNodes: false,
      names: ["api-1"],
      refusal: /Deployment\/api names its instances itself.*resizeBy: 1 instead/,
    },
    {
      why: "a custom kind names its own",
      ref: { apiVersion: "example.com/v1", kind: "StatefulSet", name: "web" },
      countsNodes: false,
      names: ["web-0"],
      refusal: /names its instances itself/,
    },
    {
      why: "Nodes are named by what provisions them, whatever the target",
      ref: sts,
      countsNodes: true,
      names: ["web-0", "web-1"],
      refusal: /instances are the Nodes it counts.*resizeBy: 2 instead/,
    },
  ])("$why", ({ ref, countsNodes, names, refusal }) => {
    const got = namingRefusal(ref, countsNodes, names);
    if (refusal === undefined) expect(got).toBeUndefined();
    else expect(got).toMatch(refusal);
  });
});

describe("the next ordinals a scale-up adds", () => {
  test("from the replicas, counted from spec.ordinals.start", () => {
    expect(nextOrdinalNames("web", 2, 0, 2)).toEqual(["web-2", "web-3"]);
    expect(nextOrdinalNames("web", 2, 5, 1)).toEqual(["web-7"]);
  });

  test.each([
    { names: ["web-2", "web-3"], replicas: 2, first: 0, ok: true },
    { names: ["web-3", "web-2"], replicas: 2, first: 0, ok: true },
    { names: ["web-7"], replicas: 2, first: 5, ok: true },
    { names: ["web-0", "web-1"], replicas: 2, first: 0, ok: false },
    { names: ["web-2", "web-4"], replicas: 2, first: 0, ok: false },
    { names: ["web-2"], replicas: 2, first: 5, ok: false },
  ])(
    "$names from $replicas replicas (first ordinal $first): honoured $ok",
    ({ names, replicas, first, ok }) => {
      const mismatch = nextOrdinalsMismatch("web", replicas, first, names);
      if (ok) expect(mismatch).toBeUndefined();
      else expect(mismatch).toContain(`has ${String(replicas)} replicas, so its next`);
    },
  );
});
