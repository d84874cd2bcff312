// The fixed external names of the API (docs/design.md §2). Everything that spells a group, kind, plural or
// REST `kind` constant imports it from here, so a rename is a one-line change that the generated
// CRDs, admission policy and docs follow.

export const GROUP = "compute.resize-operator.dev";
export const VERSION = "v1";
export const API_VERSION = `${GROUP}/${VERSION}`;

/** Category shared by the kinds: `kubectl get resize` lists groups, requests and future reservations together. */
export const CATEGORY = "resize";
export const FINALIZER = `${GROUP}/finalizer`;
export const REPORTING_CONTROLLER = `${GROUP}/resize-controller`;

/** The names a CustomResourceDefinition needs for one kind. */
export interface KindNames {
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
}

export const INSTANCE_GROUP_MANAGER = {
  kind: "InstanceGroupManager",
  listKind: "InstanceGroupManagerList",
  plural: "instancegroupmanagers",
  singular: "instancegroupmanager",
  shortNames: ["igm"],
} as const satisfies KindNames;

export const RESIZE_REQUEST = {
  kind: "ResizeRequest",
  listKind: "ResizeRequestList",
  plural: "resizerequests",
  singular: "resizerequest",
  shortNames: ["rr"],
} as const satisfies KindNames;

export const FUTURE_RESERVATION = {
  kind: "FutureReservation",
  listKind: "FutureReservationList",
  plural: "futurereservations",
  singular: "futurereservation",
  shortNames: ["fr"],
} as const satisfies KindNames;

/** The RBAC verb a creator of a ResizeRequest needs on the named InstanceGroupManager (docs/design.md §6). */
export const USE_VERB = "use";

/** REST API identity (docs/design.md §2) and the `kind` constants of its resources. */
export const REST_API = { name: "compute", version: "v1", id: "compute:v1" } as const;
export const REST_KIND = {
  resizeRequest: "compute#instanceGroupManagerResizeRequest",
  resizeRequestList: "compute#instanceGroupManagerResizeRequestList",
  regionResizeRequestList: "compute#regionInstanceGroupManagerResizeRequestList",
  operation: "compute#operation",
  operationList: "compute#operationList",
  futureReservation: "compute#futureReservation",
  futureReservationList: "compute#futureReservationsListResponse",
} as const;

/** The REST collection of bookings (FutureReservations), zonal as in the compute API. */
export const FUTURE_RESERVATIONS_RESOURCE = "futureReservations";

/** The REST collections (discovery resources) serving a zonal or a regional group. */
export const REST_RESOURCES = {
  zones: { requests: "instanceGroupManagerResizeRequests", operations: "zoneOperations" },
  regions: { requests: "regionInstanceGroupManagerResizeRequests", operations: "regionOperations" },
} as const;

/**
 * The ValidatingAdmissionPolicy that requires verb `use` on a group to create a ResizeRequest or a
 * FutureReservation for it (its name predates bookings; kept so that installed copies are replaced).
 */
export const USE_POLICY_NAME = `${RESIZE_REQUEST.plural}-use-${INSTANCE_GROUP_MANAGER.singular}.${GROUP}`;
/** The ValidatingAdmissionPolicy that requires the target's scale right to point a group at it, or widen it. */
export const TARGET_POLICY_NAME = `${INSTANCE_GROUP_MANAGER.plural}-scale-target.${GROUP}`;
/** The policies the operator will not scale a target without: they keep it from lending its rights. */
export const GUARDING_POLICIES: readonly string[] = [TARGET_POLICY_NAME, USE_POLICY_NAME];
