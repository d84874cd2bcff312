// The labels that tie an instance to the ResizeRequest that added it (docs/lifecycle.md "Whose
// instances"). One module, so the controller that sets them, the release that selects by them and the
// ProvisioningRequest bridge that publishes them agree on the keys.

/** On every instance an attempt adds: the name of the request that added it. */
export const REQUEST_LABEL = "compute.resize-operator.dev/resize-request";

/**
 * On cluster-scoped instances (Nodes, NodeClaims) beside REQUEST_LABEL: the request's namespace, since
 * the name alone is unique only within a namespace.
 */
export const REQUEST_NAMESPACE_LABEL = "compute.resize-operator.dev/resize-request-namespace";

/**
 * The label GKE's queued provisioning puts on the nodes of a ProvisioningRequest, valued with the
 * ResizeRequestName published in its provisioningClassDetails: Kueue's podSetUpdates select it.
 */
export const GKE_PROVISIONING_REQUEST_LABEL = "autoscaling.gke.io/provisioning-request";
