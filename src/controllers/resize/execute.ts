// Carries out a Plan against the API server, in the order that keeps it crash-safe: the labels that make
// instances a request's own land before the status that lists them; a finalizer that protects a change
// lands before the status recording that change; the statuses go in plan order (each guarded by
// resourceVersion); then the one scale change (only if its record was written or is confirmed on the
// server), after deleting the request's own NodeClaims it removes; then finalizer removals, the
// group's status, and events. A conflict
// anywhere ends the pass early; the key is reconciled again with fresh state.
import { INSTANCE_GROUP_MANAGERS, RESIZE_REQUESTS } from "../../api/kinds.js";
import { API_VERSION, FINALIZER, INSTANCE_GROUP_MANAGER, RESIZE_REQUEST } from "../../api/names.js";
import type { ResizeRequest, ResizeRequestStatus } from "../../api/resize-request.js";
import type { ObjectRef } from "../../events/event.js";
import type { EventRecorder } from "../../events/recorder.js";
import { isConflict, isNotFound } from "../../runtime/api-errors.js";
import { unstructuredOf } from "../../runtime/builtin-kinds.js";
import type { MergePatch } from "../../runtime/resource-client.js";
import type { KubeClient } from "../../runtime/resource-client.js";
import type { Plan, PlannedEvent } from "./decide/index.js";
import { deleteNodeClaims, writeInstances } from "../../targets/instances/write.js";
import type { GroupObjects } from "./observe.js";
import type { ScaleClient } from "../../targets/scale-client.js";

/** An event of a plan whose record was written, with the request as observed before this pass. */
export interface PlanEventNotice {
  readonly namespace: string;
  readonly group: string;
  readonly event: PlannedEvent;
  readonly before: ResizeRequest | undefined;
}

export interface ExecuteDeps {
  readonly client: KubeClient;
  readonly scale: ScaleClient;
  readonly recorder: EventRecorder;
  /** Observes emitted plan events (metrics derive attempt outcomes from them); must not throw. */
  readonly onPlanEvent?: (notice: PlanEventNotice) => void;
}

export type ExecuteOutcome = "done" | "conflict";

/** The state this pass was decided on is outdated: an object moved on, or went away. */
const isOutdated = (err: unknown): boolean => isConflict(err) || isNotFound(err);

/** The record on `status` that a scale to `replicas` carries out, if any. */
function recordsScale(status: ResizeRequestStatus | undefined, replicas: number): boolean {
  const p = status?.provisioning;
  const r = status?.release;
  return (
    (p !== undefined &&
      (p.phase === "Applying" || p.phase === "RollingBack") &&
      p.targetReplicas === replicas) ||
    (r !== undefined && r.phase === "Applying" && r.targetReplicas === replicas)
  );
}

/** The group as read, as an Event names it. */
function groupRef(objects: GroupObjects): ObjectRef {
  return {
    apiVersion: API_VERSION,
    kind: INSTANCE_GROUP_MANAGER.kind,
    namespace: objects.namespace,
    name: objects.groupName,
    uid: objects.group?.metadata.uid ?? "",
  };
}

/** Merges `patch` into the observed target object (a held node limit, targets/karpenter/node-limit.ts). */
async function patchTarget(deps: ExecuteDeps, objects: GroupObjects, patch: MergePatch): Promise<void> {
  const target = objects.target;
  const ref = objects.group?.spec.targetRef;
  if (!target?.found || !ref) return;
  const where = { apiVersion: ref.apiVersion, ...target.served };
  await deps.client
    .resource(unstructuredOf(where, ref.kind))
    .mergePatch({ namespace: objects.namespace, name: ref.name }, patch);
}

export async function executePlan(
  deps: ExecuteDeps,
  objects: GroupObjects,
  plan: Plan,
): Promise<ExecuteOutcome> {
  const requests = deps.client.resource(RESIZE_REQUESTS);
  const namespace = objects.namespace;
  const home = { namespace, targetApiVersion: objects.group?.spec.targetRef.apiVersion ?? "" };
  const latest = new Map(objects.requests);
  const written = new Set<string>();

  const setFinalizers = async (name: string, add: boolean): Promise<void> => {
    const rr = latest.get(name);
    if (!rr) return;
    const current = rr.metadata.finalizers ?? [];
    if (current.includes(FINALIZER) === add) return;
    const finalizers = add ? [...current, FINALIZER] : current.filter((f) => f !== FINALIZER);
    // The resourceVersion makes the patch conditional: a finalizer list changed since is not overwritten.
    const updated = await requests.mergePatch(
      { namespace, name },
      { metadata: { resourceVersion: rr.metadata.resourceVersion, finalizers } },
    );
    latest.set(name, updated);
  };

  // A finalizer protects the change its request's status records, so it lands before that status;
  // other requests' status writes do not wait for it (different objects: one round trip less).
  const adding = new Map(
    plan.requests
      .filter((change) => change.finalizer === "add")
      .map((change) => [change.name, setFinalizers(change.name, true)] as const),
  );
  // Awaited below; a failure is seen there, not as an unhandled rejection meanwhile.
  for (const pending of adding.values()) pending.catch(() => undefined);
  try {
    await writeInstances(deps.client, home, plan.labels);
    // In plan order: decide() puts the record of a new change after the resolutions it relies on.
    for (const change of plan.requests) {
      await adding.get(change.name);
      const rr = latest.get(change.name);
      if (!change.status || !rr) continue;
      const updated = await requests.updateStatus({ ...rr, status: change.status });
      latest.set(change.name, updated);
      written.add(change.name);
    }
    await Promise.all(adding.values());
    if (plan.scale && objects.group) {
      const { request, from, replicas } = plan.scale;
      // The cache may lag behind our own writes; the server's copy of the record must call for this change.
      const record = written.has(request)
        ? latest.get(request)
        : await requests.get({ namespace, name: request });
      if (!recordsScale(record?.status, replicas)) return "conflict";
      // Under the resourceVersion of the Scale observed at the start of this pass: a change since
      // (ours or anyone's) is a conflict, and the pass is decided again from fresh state.
      const observed = objects.target?.found ? objects.target.scale : undefined;
      // The node limit held, the request's NodeClaims deleted, the pool lowered: Karpenter then neither
      // replaces them nor picks others (targets/karpenter/node-limit.ts).
      const removal = plan.scale.removal;
      if (removal?.hold) await patchTarget(deps, objects, removal.hold);
      if (removal) {
        await deleteNodeClaims(
          deps.client,
          removal.deletes.map((o) => o.name),
        );
        await writeInstances(deps.client, home, removal.writes);
      }
      const applied = await deps.scale.scale(
        namespace,
        objects.group.spec.targetRef,
        from,
        replicas,
        observed,
      );
      if (!applied) return "conflict";
    }
    // Independent of each other: finalizer removals (of finished requests) and the group's summary.
    const { groupStatus } = plan;
    const group = objects.group && groupStatus && { ...objects.group, status: groupStatus };
    await Promise.all([
      ...plan.requests
        .filter((change) => change.finalizer === "remove")
        .map((change) => setFinalizers(change.name, false)),
      ...(group ? [deps.client.resource(INSTANCE_GROUP_MANAGERS).updateStatus(group)] : []),
    ]);
    if (plan.targetPatch) await patchTarget(deps, objects, plan.targetPatch);
    // The group's own Events tell the condition just written (its target refused).
    for (const e of group ? plan.groupEvents : [])
      deps.recorder.emit({ ...e.event, note: e.note, regarding: groupRef(objects) });
  } catch (err) {
    if (isOutdated(err)) return "conflict";
    throw err;
  } finally {
    // Events describe decisions whose records were written; emit those even if a later step failed.
    for (const e of plan.events) {
      const rr = latest.get(e.request);
      if (!rr || !written.has(e.request)) continue;
      deps.recorder.emit({
        ...e.event,
        note: e.note,
        regarding: {
          apiVersion: API_VERSION,
          kind: RESIZE_REQUEST.kind,
          namespace,
          name: e.request,
          uid: rr.metadata.uid ?? "",
        },
        ...(objects.group && { related: groupRef(objects) }),
      });
      deps.onPlanEvent?.({
        namespace,
        group: objects.groupName,
        event: e,
        before: objects.requests.get(e.request),
      });
    }
  }
  return "done";
}
