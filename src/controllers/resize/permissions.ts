// What the resize controller calls on the API server (informers in setup.ts, writes in execute.ts,
// targets in targets/scale-client.ts and targets/informers.ts, pods and autoscaler events in targets/pods.ts, Nodes in node-informers.ts, Karpenter's
// objects in targets/karpenter/read.ts). The chart's RBAC is generated from this list; the Node and Karpenter
// rules only with their chart values (optIn).
import { GROUP, INSTANCE_GROUP_MANAGER, RESIZE_REQUEST } from "../../api/names.js";
import { KARPENTER } from "../../api/readiness.js";
import { permission } from "../../rbac/permissions.js";

export const CONTROLLER_PERMISSIONS = [
  permission({
    apiGroups: ["admissionregistration.k8s.io"],
    resources: ["validatingadmissionpolicies", "validatingadmissionpolicybindings"],
    verbs: ["list", "watch"],
    why: "resize controller: scales no target unless the admission policies that keep groups from lending its scale rights exist and deny (admission-guard.ts)",
  }),
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
    verbs: ["get", "list", "watch"],
    why: "resize controller: targets' replicas and ready count from a shared informer per kind (list/watch; created when a group first targets the kind, only replicas, selector and status kept), a change reconciling its groups at once; reads the object once more where the cache has not listed it yet (get). Other kinds are added with the chart value rbac.extraTargetRules; a kind granted only get there is read with get at every pass",
  }),
  permission({
    apiGroups: ["cluster.x-k8s.io"],
    resources: ["machinedeployments", "machinesets", "machinepools"],
    verbs: ["get", "list", "watch"],
    why: "resize controller: replicas and ready count of Cluster API targets (real machines on any cloud) from a shared informer per kind (list/watch), get where the cache has not listed the object yet",
  }),
  permission({
    apiGroups: ["cluster.x-k8s.io"],
    resources: ["machines"],
    verbs: ["list", "patch"],
    why: "resize controller: a MachineDeployment's or MachineSet's Machines are a request's instances: listed by the target's selector when an attempt succeeds or a release is due, labelled with the request's name (patch), and annotated cluster.x-k8s.io/delete-machine just before its release lowers the target (patch), so the MachineSet deletes exactly those",
  }),
  permission({
    apiGroups: ["apiextensions.k8s.io"],
    resources: ["customresourcedefinitions"],
    verbs: ["get"],
    why: "resize controller: a custom resource target's /scale fields (spec.versions[].subresources.scale), read once a minute per kind, so that its replicas come from the target's informer; without it such targets are read with get",
  }),
  permission({
    apiGroups: [""],
    resources: ["pods"],
    verbs: ["list", "patch"],
    why: "resize controller: while an attempt waits for its instances, lists the target's pods by its selector to find Unschedulable ones (ZONE_RESOURCE_POOL_EXHAUSTED, fast rollback); an apps/v1 target's pods are a request's instances: labelled with its name when it succeeds (patch), and given the lowest controller.kubernetes.io/pod-deletion-cost just before its release lowers a Deployment or ReplicaSet (patch)",
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
    verbs: ["list", "watch", "patch"],
    why: "resize controller: counts the ready instances of groups with spec.readiness.nodeSelector from their Nodes (one cluster-wide informer), and labels the Nodes a request added with its name (patch: labels only); only with rbac.nodeReadiness or rbac.karpenter",
    optIn: "nodeReadiness",
  }),
  permission({
    apiGroups: [KARPENTER.group],
    resources: ["nodepools"],
    verbs: ["get", "list", "watch", "patch"],
    why: "resize controller: a Karpenter NodePool target (its replicas, generation and spec.limits.nodes) from a shared informer of NodePools (list/watch), get where the cache has not listed it yet; only with rbac.karpenter; patch: holds spec.limits.nodes at the pool's NodeClaims while a request's own are deleted, and gives it back after (annotation compute.resize-operator.dev/held-node-limit)",
    optIn: "karpenter",
  }),
  permission({
    apiGroups: [KARPENTER.group],
    resources: ["nodeclaims"],
    verbs: ["list", "patch", "delete"],
    why: "resize controller: lists a Karpenter NodePool's NodeClaims by label (failed launches for the fast rollback; which NodeClaims a request added), labels those a request added with its name (patch), and deletes exactly a request's NodeClaims when its run duration ends or its attempt rolls back (delete); only with rbac.karpenter",
    optIn: "karpenter",
  }),
  permission({
    nonResourceURLs: ["/api", "/api/*", "/apis", "/apis/*"],
    verbs: ["get"],
    why: "resize controller: API discovery finds the resource path of a target's kind and whether it has /scale (usually granted to every user by system:discovery; declared so the operator does not depend on it)",
  }),
];
