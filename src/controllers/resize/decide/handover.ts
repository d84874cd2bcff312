// The step that follows a release resolved in this pass on a target that removes its highest ordinals
// first (identity HighestOrdinals, targets/instances/ordinals.ts): the releasing request's surviving
// pods pass to the requests whose pods the target removed in their place, relabelled (written before any status) and listed on the receivers' status, with an Event on
// both sides and a condition on each receiver. Recomputed from the statuses on every pass that resolves
// the release, so a pass cut short is simply done again.
import { ResizeRequestCondition as RC } from "../../../api/conditions.js";
import { resizeEvents as E } from "../../events.js";
import { afterHandover, ordinalHandover, type Handover } from "../../../targets/instances/ordinals.js";
import { labelsFor, type InstanceWrite } from "../../../targets/instances/view.js";
import type { GroupSnapshot } from "../snapshot.js";
import type { PlanDraft } from "./plan-draft.js";
import type { RequestDraft } from "./request-draft.js";

const podsOf = (d: RequestDraft): string[] =>
  (d.status.instances ?? []).flatMap((i) => (i.kind === "Pod" ? [i.name] : []));

/** Holds instances a release may still take: succeeded, not yet released. */
const holds = (d: RequestDraft): boolean =>
  d.status.state === "SUCCEEDED" && d.status.release?.phase !== "Applied" && podsOf(d).length > 0;

const list = (pods: readonly string[]): string => pods.join(", ");

export interface HandedOver {
  readonly plan: PlanDraft;
  /** Requests that gave their pods: their statuses are written after the receivers'. */
  readonly givers: ReadonlySet<string>;
}

export function handOverOrdinals(
  drafts: readonly RequestDraft[],
  s: GroupSnapshot,
  plan: PlanDraft,
): HandedOver {
  const target = s.target;
  const givers = new Set<string>();
  if (s.group?.identity?.instances !== "Pod" || s.group.identity.mechanism !== "HighestOrdinals")
    return { plan, givers };
  if (!target?.found) return { plan, givers };
  // How messages name the target (its kind and name, as the group's other messages do).
  const named = `${s.group.targetKind} ${s.group.targetName}`;
  const targetName = s.group.targetName;
  const key = (x: RequestDraft) => ({ namespace: s.namespace, name: x.name });
  let labels: InstanceWrite[] = [];
  for (const d of drafts) {
    const release = d.status.release;
    const resolvedNow = d.view.status.release?.phase !== "Applied" && release?.phase === "Applied";
    // A release whose target was changed by someone else meanwhile was left alone: nothing to hand over.
    if (!resolvedNow || release.targetReplicas !== target.replicas) continue;
    const others = drafts.filter((o) => o !== d && holds(o));
    const cut = (target.firstOrdinal ?? 0) + release.targetReplicas;
    const handovers = ordinalHandover(
      targetName,
      cut,
      { request: key(d), pods: podsOf(d) },
      others.map((o) => ({ request: key(o), pods: podsOf(o) })),
    );
    if (handovers.length === 0) continue;
    givers.add(d.name);
    for (const receiver of others) {
      const mine = handovers.filter((h) => h.to.name === receiver.name);
      if (mine.length === 0) continue;
      const pods = afterHandover(targetName, key(receiver), podsOf(receiver), handovers);
      receiver.patch({ instances: pods.map((name) => ({ kind: "Pod", name })) });
      const note = receiverNote(named, d.name, mine);
      receiver.condition({
        type: RC.InstancesReplaced,
        status: "True",
        reason: "HighestOrdinalsFirst",
        message: note,
      });
      receiver.emit(E.InstancesHandedOver, note);
      const written = labelsFor(key(receiver), receiver.view.forProvisioningRequest);
      labels = [
        ...labels,
        ...mine.map((h): InstanceWrite => ({ kind: "Pod", name: h.pod, labels: written })),
      ];
    }
    d.emit(E.InstancesHandedOver, giverNote(named, handovers));
  }
  return { plan: labels.length === 0 ? plan : { ...plan, labels: [...plan.labels, ...labels] }, givers };
}

function receiverNote(named: string, giver: string, mine: readonly Handover[]): string {
  return `Request ${giver}'s run duration ended first, and ${named} removes its highest ordinals: this request's ${list(mine.map((h) => h.replaces))} went, and ${giver}'s ${list(mine.map((h) => h.pod))} took their place (labelled and listed as this request's).`;
}

function giverNote(named: string, handovers: readonly Handover[]): string {
  const byReceiver = new Map<string, Handover[]>();
  for (const h of handovers) byReceiver.set(h.to.name, [...(byReceiver.get(h.to.name) ?? []), h]);
  const parts = [...byReceiver].map(
    ([to, hs]) =>
      `${list(hs.map((h) => h.replaces))} of request ${to}, whose place this request's ${list(hs.map((h) => h.pod))} now hold`,
  );
  return `${named} removes its highest ordinals, so lowering it took ${parts.join("; ")}.`;
}
