// The operator's own kinds as the Kubernetes client addresses them, decoded with their models.
import type { ResourceKind } from "../runtime/resource-kind.js";
import { FutureReservation } from "./future-reservation.js";
import { InstanceGroupManager } from "./instance-group-manager.js";
import { API_VERSION, FUTURE_RESERVATION, INSTANCE_GROUP_MANAGER, RESIZE_REQUEST } from "./names.js";
import {
  PodTemplate,
  PROVISIONING_API_VERSION,
  PROVISIONING_REQUEST,
  ProvisioningRequest,
} from "./provisioning-request.js";
import { ResizeRequest } from "./resize-request.js";

export const RESIZE_REQUESTS: ResourceKind<ResizeRequest> = {
  apiVersion: API_VERSION,
  kind: RESIZE_REQUEST.kind,
  resource: RESIZE_REQUEST.plural,
  namespaced: true,
  schema: ResizeRequest,
};

export const INSTANCE_GROUP_MANAGERS: ResourceKind<InstanceGroupManager> = {
  apiVersion: API_VERSION,
  kind: INSTANCE_GROUP_MANAGER.kind,
  resource: INSTANCE_GROUP_MANAGER.plural,
  namespaced: true,
  schema: InstanceGroupManager,
};

export const FUTURE_RESERVATIONS: ResourceKind<FutureReservation> = {
  apiVersion: API_VERSION,
  kind: FUTURE_RESERVATION.kind,
  resource: FUTURE_RESERVATION.plural,
  namespaced: true,
  schema: FutureReservation,
};

/** autoscaling.x-k8s.io/v1 ProvisioningRequests (cluster-autoscaler's CRD), served for our class. */
export const PROVISIONING_REQUESTS: ResourceKind<ProvisioningRequest> = {
  apiVersion: PROVISIONING_API_VERSION,
  kind: PROVISIONING_REQUEST.kind,
  resource: PROVISIONING_REQUEST.plural,
  namespaced: true,
  schema: ProvisioningRequest,
};

/** core/v1 PodTemplates: a ProvisioningRequest's pod sets point at them. */
export const POD_TEMPLATES: ResourceKind<PodTemplate> = {
  apiVersion: "v1",
  kind: "PodTemplate",
  resource: "podtemplates",
  namespaced: true,
  schema: PodTemplate,
};
