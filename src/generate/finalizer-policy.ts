// The MutatingAdmissionPolicy that adds the operator's finalizer to a ResizeRequest as it is created,
// so the API server writes it with the object and the controller saves one write per request. The
// controller still adds it itself where the policy is absent (clusters before Kubernetes 1.36, the
// policy turned off, a request created before it was installed): observe.ts reads the finalizer from
// the object, wherever it came from.
import { FINALIZER, GROUP, RESIZE_REQUEST } from "../api/names.js";
import { RESIZE_REQUEST_CREATES } from "./admission.js";
import { PART_OF_LABELS } from "./crd.js";

export const FINALIZER_POLICY_NAME = `${RESIZE_REQUEST.plural}-finalizer.${GROUP}`;

/** GA (admissionregistration.k8s.io/v1, served by default) from Kubernetes 1.36. */
export const MUTATING_POLICY_API = "admissionregistration.k8s.io/v1";

export function finalizerPolicy() {
  return {
    apiVersion: MUTATING_POLICY_API,
    kind: "MutatingAdmissionPolicy",
    metadata: { name: FINALIZER_POLICY_NAME, labels: PART_OF_LABELS },
    spec: {
      // The finalizer saves a write; it is not what keeps a request safe (the controller adds it before
      // it records an attempt when it is missing). So a failing mutation lets the create through
      // unchanged: a malformed request then meets the CRD schema's own readable rejection, not an
      // "error applying patch" from this policy.
      failurePolicy: "Ignore",
      // A set union (server-side apply semantics on metadata.finalizers): applying it again changes
      // nothing, and no other policy removes it, so there is nothing to re-run.
      reinvocationPolicy: "Never",
      matchConstraints: RESIZE_REQUEST_CREATES,
      mutations: [
        {
          patchType: "ApplyConfiguration",
          applyConfiguration: {
            expression: `Object{metadata: Object.metadata{finalizers: ["${FINALIZER}"]}}`,
          },
        },
      ],
    },
  };
}

export function finalizerPolicyBinding() {
  return {
    apiVersion: MUTATING_POLICY_API,
    kind: "MutatingAdmissionPolicyBinding",
    metadata: { name: FINALIZER_POLICY_NAME, labels: PART_OF_LABELS },
    spec: { policyName: FINALIZER_POLICY_NAME },
  };
}
