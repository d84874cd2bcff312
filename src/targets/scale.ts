// Any other kind with a /scale subresource (kind.ts): read and scaled through /scale alone, its fields
// from its CRD (scale-mapping.ts). Its instances are not told apart unless its readiness is counted
// from Nodes (then they are listed, and a release lowers the replicas: its own controller chooses which
// go); why capacity is missing is what the scheduler says of the target's pods (pods.ts).
import type { TargetKind } from "./kind.js";
import { podsCapacity } from "./pods.js";

export const scale: TargetKind = {
  name: "scale",
  matches: () => true,
  // Its CRD says where its /scale fields live (scale-mapping.ts, crdScalePaths).
  scalePaths: new Map(),
  identity: (_ref, countsNodes) =>
    countsNodes ? { instances: "Node", mechanism: "CountOnly" } : { instances: "Untracked" },
  details: () => ({}),
  capacity: podsCapacity,
};
