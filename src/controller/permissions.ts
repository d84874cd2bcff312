// What the resize controller calls on the API server (informers in setup.ts, writes in execute.ts,
// targets in target.ts, pods and autoscaler events in observe.ts, Nodes in node-informers.ts, Karpenter's
// objects in karpenter-read.ts). The chart's RBAC is generated from this list; the Node and Karpenter
// rules only with their chart values (optIn).
import { GROUP, INSTANCE_GROUP_MANAGER, RESIZE_REQUEST } from "../api/names.js";
import { KARPENTER } from "../api/readiness.js";
import { permission } from "../rbac/permissions.js";

export const CONTROLLER_PERMISSIONS = [
  permission({
    apiGroups: [GROUP],
    resources: [RESIZE_REQUEST.plural],
    verbs: ["get", "list", "watch", "patch", "delete"],
    why: "resize controller: cache of requests (list/watch); re-reads a request before scaling (get); adds and removes its finalizer (merge patch); deletes finished requests after their group's finishedRequestRetention (delete)",
  }),
  permission({
    apiGroups: [GROUP],
    resources: [`${RESIZE_REQUEST.plural}/status`],
    verbs: ["update"],
    why: "resize controller: records every state change and every scale change on the request's status before acting",
  }),
  permission({
    apiGroups: [GROUP],
    resources: [INSTANCE_GROUP_MANAGER.plural],
    verbs: ["list", "watch"],
    why: "resize controller: cache of groups, one reconcile key per group",
  }),
  permission({
    apiGroups: [GROUP],
    resources: [`${INSTANCE_GROUP_MANAGER.plural}/status`],
    verbs: ["update"],
    why: "resize controller: writes the group's size, ready instances, queue and conditions",
  }),
  permission({
    apiGroups: ["*"],
    resources: ["*/scale"],
    verbs: ["get", "update"],
    why: "resize controller: a group may target any kind with a /scale subresource; replicas are read and set only through /scale (never the object itself)",
  }),
  permission({
    apiGroups: ["apps"],
    resources: ["deployments", "statefulsets", "replicasets"],
    verbs: ["get"],
    why: "resize controller: reads a target's ready count (status.readyReplicas); other kinds are added with the chart value rbac.extraTargetRules",
  }),
  permission({
    apiGroups: ["cluster.x-k8s.io"],
    resources: ["machinedeployments", "machinesets", "machinepools"],
    verbs: ["get"],
    why: "resize controller: reads the ready count of Cluster API targets (real machines on any cloud)",
  }),
  permission({
    apiGroups: [""],
    resources: ["pods"],
    verbs: ["list"],
    why: "resize controller: while an attempt waits for its instances, lists the target's pods by its selector to find Unschedulable ones (ZONE_RESOURCE_POOL_EXHAUSTED, fast rollback)",
  }),
  permission({
    apiGroups: [""],
    resources: ["events"],
    verbs: ["list"],
    why: "resize controller: for groups with clusterAutoscaler Detect, lists the cluster autoscaler's NotTriggerScaleUp / TriggeredScaleUp events on Unschedulable pods of an attempt (fast rollback)",
  }),
  permission({
    apiGroups: [""],
    resources: ["nodes"],
    verbs: ["list", "watch"],
    why: "resize controller: counts the ready instances of groups with spec.readiness.nodeSelector from their Nodes (one informer per selector, label-selected); only with rbac.nodeReadiness or rbac.karpenter",
    optIn: "nodeReadiness",
  }),
  permission({
    apiGroups: [KARPENTER.group],
    resources: ["nodepools"],
    verbs: ["get"],
    why: "resize controller: reads a Karpenter NodePool target (its generation and spec.limits.nodes; its replicas go through /scale); only with rbac.karpenter",
    optIn: "karpenter",
  }),
  permission({
    apiGroups: [KARPENTER.group],
    resources: ["nodeclaims"],
    verbs: ["list"],
    why: "resize controller: while an attempt on a Karpenter NodePool waits, lists the pool's NodeClaims by label to see failed launches (fast rollback); only with rbac.karpenter",
    optIn: "karpenter",
  }),
  permission({
    nonResourceURLs: ["/api", "/api/*", "/apis", "/apis/*"],
    verbs: ["get"],
    why: "resize controller: API discovery finds the resource path of a target's kind and whether it has /scale (usually granted to every user by system:discovery; declared so the operator does not depend on it)",
  }),
];
