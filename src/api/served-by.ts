// Which ProvisioningRequest (and Kueue Workload) a ResizeRequest serves, as the provisioner records it
// in the request's annotations. Imports nothing, so that the browser UI can load it as tsc emits it
// (test/unit/dashboard/ui-imports.test.ts); the keys are in the API group (a unit test checks it).

/** On a ResizeRequest created for a ProvisioningRequest: the request's `namespace/name`. */
export const PROVISIONING_REQUEST_ANNOTATION = "compute.resize-operator.dev/provisioning-request";
/** On the same ResizeRequest: `namespace/name` of the Kueue Workload that owns the ProvisioningRequest, if any. */
export const WORKLOAD_ANNOTATION = "compute.resize-operator.dev/workload";

/** What a ResizeRequest created by the provisioner serves (`namespace/name` each), read from its annotations. */
export function servedBy(annotations: Readonly<Record<string, string>> | undefined): {
  readonly provisioningRequest?: string;
  readonly workload?: string;
} {
  const provisioningRequest = annotations?.[PROVISIONING_REQUEST_ANNOTATION];
  const workload = annotations?.[WORKLOAD_ANNOTATION];
  return { ...(provisioningRequest && { provisioningRequest }), ...(workload && { workload }) };
}
