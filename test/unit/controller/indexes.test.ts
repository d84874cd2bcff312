// The group cache's target index (src/cache/indexes.ts): a change of a target object reaches the
// groups pointing at it, whatever version of its kind they name; a namespaced target only those of its
// namespace, a cluster-scoped one (a Karpenter NodePool) those of every namespace.
import type { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import { GROUP_INDEXERS, groupsOfTarget } from "../../../src/cache/indexes.js";
import { Store } from "../../../src/runtime/store.js";

function groupOver(namespace: string, name: string, apiVersion: string, kind: string, target: string) {
  return {
    apiVersion: "compute.resize-operator.dev/v1",
    kind: "InstanceGroupManager",
    metadata: { namespace, name },
    spec: { zone: "local-a", targetRef: { apiVersion, kind, name: target } },
  } as unknown as InstanceGroupManager;
}

const groups = new Store<InstanceGroupManager>(GROUP_INDEXERS);
for (const g of [
  groupOver("a", "web", "apps/v1", "Deployment", "web"),
  groupOver("a", "web-too", "apps/v1", "Deployment", "web"),
  groupOver("b", "web", "apps/v1", "Deployment", "web"),
  groupOver("a", "api", "apps/v1", "Deployment", "api"),
  groupOver("a", "sts", "apps/v1", "StatefulSet", "web"),
  groupOver("a", "gpu", "karpenter.sh/v1", "NodePool", "gpu"),
  groupOver("c", "gpu", "karpenter.sh/v1beta1", "NodePool", "gpu"),
])
  groups.set(g);

const keys = (gs: InstanceGroupManager[]) =>
  gs.map((g) => `${g.metadata.namespace}/${g.metadata.name}`).sort();

test.each([
  [{ apiGroup: "apps", kind: "Deployment", namespace: "a", name: "web" }, ["a/web", "a/web-too"]],
  [{ apiGroup: "apps", kind: "Deployment", namespace: "b", name: "web" }, ["b/web"]],
  [{ apiGroup: "apps", kind: "StatefulSet", namespace: "a", name: "web" }, ["a/sts"]],
  [{ apiGroup: "apps", kind: "Deployment", namespace: "z", name: "web" }, []],
  [{ apiGroup: "karpenter.sh", kind: "NodePool", namespace: undefined, name: "gpu" }, ["a/gpu", "c/gpu"]],
])("a change of %j reaches %j", (target, expected) => {
  expect(keys(groupsOfTarget(groups, target))).toEqual(expected);
});
