// No policy, no service. The operator scales targets with its own wide `*/scale` grant; what keeps a
// group from lending that grant to its author is the admission policies (generate/target-policy.ts and
// generate/admission.ts). Where they are missing or not enforcing (a second release with
// admissionPolicy.enabled=false, an overlay without them, a binding set to Warn), the operator scales no
// target: its groups say why (Ready=False, AdmissionPolicyMissing, and an Event) and their requests
// wait. The decision is pure (`policyProblem`); the guard watches both kinds through shared informers.
import { z } from "zod";
import { GUARDING_POLICIES } from "../../api/names.js";
import { resourcePath } from "../../runtime/resource-kind.js";
import { Unstructured } from "../../runtime/builtin-kinds.js";
import type { Informer } from "../../runtime/informer.js";
import type { InformerSpec } from "../../runtime/manager.js";
import type { MetricsSink } from "../../runtime/metrics.js";

const ADMISSION = "admissionregistration.k8s.io/v1";
export const ADMISSION_POLICY_METRIC = "resize_admission_policies_enforced";

export interface PolicyObject {
  readonly name: string;
  readonly failurePolicy?: string | undefined;
}
export interface BindingObject {
  readonly policyName?: string | undefined;
  readonly validationActions?: readonly string[] | undefined;
  /** Set when the binding narrows what it applies to: then it does not guard every group. */
  readonly narrowed: boolean;
}

/** Why the guarding policies do not protect every group, or undefined when they do. */
export function policyProblem(
  required: readonly string[],
  policies: readonly PolicyObject[],
  bindings: readonly BindingObject[],
): string | undefined {
  for (const name of required) {
    const policy = policies.find((p) => p.name === name);
    if (!policy) return `the ValidatingAdmissionPolicy ${name} does not exist`;
    if (policy.failurePolicy === "Ignore")
      return `the ValidatingAdmissionPolicy ${name} has failurePolicy Ignore`;
    const denying = bindings.some(
      (b) => b.policyName === name && !b.narrowed && (b.validationActions ?? []).includes("Deny"),
    );
    if (!denying)
      return `no ValidatingAdmissionPolicyBinding binds ${name} with validationActions [Deny] for every object`;
  }
  return undefined;
}

/** The message a group shows while the policies are missing. */
export function policyMissingMessage(problem: string): string {
  return `The operator scales no target while its admission policies are not enforcing: ${problem}. Install them (the chart's admissionPolicy.enabled=true, or kubectl apply -f manifests/admission/); until then this group's requests wait.`;
}

/** The fields read of both kinds; everything else is dropped from the cache. */
const Guarding = Unstructured.extend({
  spec: z
    .looseObject({
      failurePolicy: z.string().optional(),
      policyName: z.string().optional(),
      validationActions: z.array(z.string()).optional(),
      matchResources: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
});
type Guarding = z.infer<typeof Guarding>;

export interface AdmissionGuardOptions {
  readonly informer: (spec: InformerSpec<Guarding>) => Informer<Guarding>;
  readonly metrics?: MetricsSink | undefined;
  /** Called when the verdict may have changed (every group is then looked at again). */
  readonly onChange: () => void;
}

export class AdmissionGuard {
  private readonly policies: Informer<Guarding>;
  private readonly bindings: Informer<Guarding>;

  constructor(private readonly options: AdmissionGuardOptions) {
    const spec = (resource: string) => ({
      name: resource,
      path: resourcePath({ apiVersion: ADMISSION, resource, namespaced: false }),
      decode: (raw: object) => Guarding.parse(raw),
    });
    this.policies = options.informer(spec("validatingadmissionpolicies"));
    this.bindings = options.informer(spec("validatingadmissionpolicybindings"));
    for (const informer of [this.policies, this.bindings])
      informer.addEventHandler({
        onAdd: () => {
          this.changed();
        },
        onUpdate: () => {
          this.changed();
        },
        onDelete: () => {
          this.changed();
        },
      });
  }

  /** Why no target may be scaled now, or undefined. Not synced yet: not known to enforce. */
  problem(): string | undefined {
    const problem = this.evaluate();
    this.options.metrics?.gauge(ADMISSION_POLICY_METRIC, {}).set(problem === undefined ? 1 : 0);
    return problem;
  }

  private evaluate(): string | undefined {
    if (!this.policies.hasSynced() || !this.bindings.hasSynced())
      return "the policies have not been read yet";
    const policies = this.policies.lister.list().map((p) => ({
      name: p.metadata?.name ?? "",
      failurePolicy: p.spec?.failurePolicy,
    }));
    const bindings = this.bindings.lister.list().map((b) => ({
      policyName: b.spec?.policyName,
      validationActions: b.spec?.validationActions,
      narrowed: Object.keys(b.spec?.matchResources ?? {}).length > 0,
    }));
    return policyProblem(GUARDING_POLICIES, policies, bindings);
  }

  private changed(): void {
    this.options.onChange();
  }
}
