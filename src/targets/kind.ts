// The target-kind seam: what the operator knows of one kind of target (apps workloads, Karpenter's
// NodePool, Cluster API's replica sets of Machines, any other kind with /scale), behind one interface,
// as cluster-autoscaler's cloudprovider.NodeGroup draws its seam per provider. Every kind is read and
// scaled through /scale (scale-client.ts, the /scale fields in scale-mapping.ts); a kind module says
// what its instances are and how a release takes a request's own, what its object adds to the target's
// view, which of the Nodes it counts are its own, why capacity an attempt asked for is missing, and
// what lowering the target must wait for. The resize decision (controllers/resize/decide/) sees only
// the neutral views below and names no kind.
import type { Provisioning } from "../api/resize-request.js";
import type { Node, ObjectCondition, ObjectMeta, Unstructured } from "../runtime/builtin-kinds.js";
import type { KubeClient, MergePatch } from "../runtime/resource-client.js";
import type { Identity } from "./instances/kinds.js";
import type { InstancesView } from "./instances/view.js";
import type { NodeReadinessRule } from "./node-readiness.js";

/** A group's spec.targetRef. */
export interface TargetRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
}

/** Dotted paths without the leading dot (`spec.replicas`), as a CRD's JSONPaths are once trimmed. */
export interface ScalePaths {
  readonly specReplicas: string;
  readonly statusReplicas: string;
  /** A string selector (a custom resource's labelSelectorPath); absent: none, or see `labelSelector`. */
  readonly selector?: string;
  /** A metav1.LabelSelector object that the API server serializes into the Scale's selector (apps/v1). */
  readonly labelSelector?: string;
}

/** Why the instances an Applied attempt added are missing, in neutral terms. */
export interface Shortfall {
  /**
   * What the instances lack, for the attempt's error: the scheduler's message on the target's
   * Unschedulable pods, or what the kind's own objects say when no pod says it.
   */
  readonly message?: string;
  /** What could not be made, when the message is not the scheduler's (it replaces "new instances could not be scheduled"). */
  readonly cause?: string;
  /**
   * Nothing will add the capacity: since when, and why. The attempt is rolled back once the group's
   * unschedulableGracePeriod has passed from then (or from when it was applied, if later).
   */
  readonly blocked?: { readonly sinceMs: number; readonly why: string };
  /** A sentence, when what would say it cannot be read: the attempt then waits for its provisioningTimeout. */
  readonly unreadable?: string;
}

/** What lowering the target, to roll an attempt back, must wait for; each unset when nothing. */
export interface LoweringWaits {
  /** Before the target is lowered: what must be finished (`until`) and what is still going on (`now`). */
  readonly beforeLowering?: { readonly until: string; readonly now: string };
  /** After it is lowered: what is still being removed; the attempt ends once it is gone. */
  readonly removing?: string;
}

/** A limit on the target's capacity that the operator holds while a request's own instances go. */
export interface CapacityLimit {
  /** The patch that holds it, when the group's instances were read and a removal may need it. */
  readonly hold?: MergePatch;
  /** The patch that gives it back once a pass removes nothing more; unset when none is held. */
  readonly giveBack?: MergePatch;
}

/** One of a kind's own instance objects in the group's namespace: its labels and times, and its Ready condition. */
export interface MemberObject {
  readonly metadata?: ObjectMeta | undefined;
  readonly status?: { readonly conditions?: readonly ObjectCondition[] | undefined } | undefined;
}

/** What the observer asks a kind module about capacity, once per pass. */
export interface CapacityQuery {
  readonly client: KubeClient;
  readonly namespace: string;
  /** The group's spec.targetRef. */
  readonly ref: TargetRef;
  /** The target as read (scale-client.ts): its object, replicas, selector, and its kind's scope. */
  readonly target: {
    readonly object: Unstructured;
    readonly replicas: number;
    readonly selector?: string | undefined;
    readonly served: { readonly namespaced: boolean };
  };
  /** Its ready count as the group counts it (from the target or from Nodes). */
  readonly readyReplicas: number;
  /** The group's spec.clusterAutoscaler. */
  readonly clusterAutoscaler: "Detect" | "None";
  /** The attempt in flight, Applied (waiting for its instances) or RollingBack; undefined otherwise. */
  readonly attempt: Provisioning | undefined;
}

/** A kind module's answer: each part unset when it has nothing to say (or was not read). */
export interface CapacityReading {
  readonly shortfall?: Shortfall;
  readonly lowering?: LoweringWaits;
}

export interface TargetKind {
  /** The module's name (targets/<name>.ts). */
  readonly name: string;
  /** Whether a group's target is of this kind. */
  matches(ref: Omit<TargetRef, "name">): boolean;
  /** Kind → where its /scale fields live in the object, for the kinds known without their CRD (scale-mapping.ts). */
  readonly scalePaths: ReadonlyMap<string, ScalePaths>;
  /** What its instances are and how a release removes a request's own (instances/kinds.ts). */
  identity(ref: Omit<TargetRef, "name">, countsNodes: boolean): Identity;
  /** What the target's object adds to its view (a StatefulSet's first ordinal); {} for most kinds. */
  details(object: Unstructured): { readonly firstOrdinal?: number };
  /** Why an attempt's capacity is missing, and what lowering must wait for: read only while needed. */
  capacity(query: CapacityQuery): Promise<CapacityReading>;
  /**
   * The group's instances where its readiness is counted from Nodes and the kind tells its own objects
   * apart among them (a NodePool's NodeClaims); undefined, or absent: the Nodes alone, count-only.
   */
  nodeInstances?(query: {
    readonly client: KubeClient;
    readonly ref: TargetRef;
    readonly selected: readonly Node[];
    readonly rule: NodeReadinessRule;
  }): Promise<InstancesView | undefined>;
  /**
   * The group's instances where they are objects of the kind's own, in the group's namespace and
   * selected by the selector its /scale reports (a MachineDeployment's Machines), as listed: instances/
   * read.ts tells their owners and readiness apart. Undefined: they cannot be listed (count-only).
   * Absent for a kind whose instances are pods (listed by instances/read.ts for any kind: pods are what
   * a /scale selector selects, and core/v1's) or Nodes (`nodeInstances`).
   */
  memberObjects?(query: {
    readonly client: KubeClient;
    readonly namespace: string;
    readonly ref: TargetRef;
    readonly selector: string;
  }): Promise<readonly MemberObject[] | undefined>;
  /** A capacity limit the operator holds while a request's own instances go, from the object as read. */
  capacityLimit?(object: Unstructured, instances: number | undefined): CapacityLimit;
}
