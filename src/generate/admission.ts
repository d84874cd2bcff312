// The ValidatingAdmissionPolicy that gives kubectl users the REST API's access rule (docs/design.md §6): whoever
// creates a ResizeRequest needs verb `use` on the InstanceGroupManager it names, as a cloud asks for
// permission on the named instance group. A FutureReservation takes the group's capacity as a request
// does (docs/booking.md "Who may book"), so the same rule, in the same policy, covers its create. Its
// spec is immutable except spec.cancel (a CRD rule, checked before admission), so no update can move a
// booking to another group or enlarge it: creates are all there is to check.
import {
  FUTURE_RESERVATION,
  GROUP,
  INSTANCE_GROUP_MANAGER,
  RESIZE_REQUEST,
  USE_POLICY_NAME,
  USE_VERB,
  VERSION,
} from "../api/names.js";
import { PART_OF_LABELS } from "./crd.js";

export { USE_POLICY_NAME };

const target = "object.spec.instanceGroupManager";

const creates = (plural: string) => ({
  apiGroups: [GROUP],
  apiVersions: [VERSION],
  operations: ["CREATE"],
  resources: [plural],
});

/** What the finalizer policy matches, and the `use` check with bookings: a ResizeRequest's create. */
export const RESIZE_REQUEST_CREATES = { resourceRules: [creates(RESIZE_REQUEST.plural)] };

/** What the `use` check matches: the creates of the kinds that take a group's capacity. */
export const CAPACITY_CLAIM_CREATES = {
  resourceRules: [creates(RESIZE_REQUEST.plural), creates(FUTURE_RESERVATION.plural)],
};

/** A ValidatingAdmissionPolicy of the operator: fails closed (a policy that cannot decide denies). */
export function validatingPolicy<S extends object>(name: string, spec: S) {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name, labels: PART_OF_LABELS },
    spec: { failurePolicy: "Fail", ...spec },
  };
}

export function useInstanceGroupManagerPolicy() {
  return validatingPolicy(USE_POLICY_NAME, {
    matchConstraints: CAPACITY_CLAIM_CREATES,
    validations: [
      {
        expression: `authorizer.group('${GROUP}').resource('${INSTANCE_GROUP_MANAGER.plural}').namespace(object.metadata.namespace).name(${target}).check('${USE_VERB}').allowed()`,
        // Both kinds name their group in spec.instanceGroupManager; the message names the kind created.
        messageExpression: `'creating a ' + object.kind + ' requires permission to ${USE_VERB} ${INSTANCE_GROUP_MANAGER.plural}/' + ${target} + ' in namespace ' + object.metadata.namespace + ': ' + request.userInfo.username + ' lacks verb "${USE_VERB}" on it'`,
        reason: "Forbidden",
      },
    ],
  });
}

/** The binding that makes the ValidatingAdmissionPolicy `policyName` deny what it rejects, everywhere. */
export function denyingBinding(policyName: string) {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name: policyName, labels: PART_OF_LABELS },
    spec: { policyName, validationActions: ["Deny"] },
  };
}

export const useInstanceGroupManagerPolicyBinding = () => denyingBinding(USE_POLICY_NAME);
