// The pod sets of a new ProvisioningRequest as demand (pure): each set's count and the spec of its
// PodTemplate, read in its own namespace. A request without pod sets, a template that is missing or
// one owned by someone else (ownership.ts) is refused with the reason to fail it with.
import type { PodTemplate, ProvisioningRequest } from "../../api/provisioning-request.js";
import type { PodSetDemand } from "./demand.js";
import { foreignTemplate } from "./ownership.js";
import { Reason } from "./conditions.js";

export type PodSetsRead =
  | { readonly ok: true; readonly podSets: readonly PodSetDemand[] }
  | { readonly ok: false; readonly reason: Reason; readonly message: string };

export function podSetDemands(
  pr: ProvisioningRequest,
  templates: ReadonlyMap<string, PodTemplate | undefined>,
): PodSetsRead {
  if (pr.spec.podSets.length === 0)
    return {
      ok: false,
      reason: Reason.InvalidPodSets,
      message: "The request has no pod sets: there is nothing to provision.",
    };
  const podSets: PodSetDemand[] = [];
  for (const set of pr.spec.podSets) {
    const name = set.podTemplateRef.name ?? "";
    const template = templates.get(name);
    if (!template)
      return {
        ok: false,
        reason: Reason.MissingPodTemplates,
        message: `PodTemplate ${pr.metadata.namespace ?? ""}/${name} of a pod set does not exist.`,
      };
    const foreign = foreignTemplate(template, pr);
    if (foreign) return { ok: false, reason: Reason.PodTemplateNotOwned, message: foreign };
    podSets.push({ name, count: set.count, spec: template.template.spec });
  }
  return { ok: true, podSets };
}
