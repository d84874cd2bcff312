// The ValidatingAdmissionPolicy, with impersonated users: creating a ResizeRequest or a FutureReservation
// needs verb `use` on the InstanceGroupManager it names, in addition to `create` on the kind.
import * as k8s from "@kubernetes/client-node";
import {
  FUTURE_RESERVATION,
  GROUP,
  INSTANCE_GROUP_MANAGER,
  RESIZE_REQUEST,
  USE_POLICY_NAME,
  USE_VERB,
  VERSION,
} from "../../../src/api/names.js";
import { instanceGroupManager, resizeRequest } from "../../support/api-cases.js";
import { createTestNamespace, eventually, kubeConfig } from "../../support/kube.js";
import { installApi, rejection, statusMessage } from "./install.js";

const admin = kubeConfig();
const rbac = admin.makeApiClient(k8s.RbacAuthorizationV1Api);
let ns: Awaited<ReturnType<typeof createTestNamespace>>;

/** The admin's credentials, acting as `user` (Impersonate-User). */
function impersonating(user: string): k8s.CustomObjectsApi {
  const kc = new k8s.KubeConfig();
  const current = admin.getCurrentUser();
  if (current === null) throw new Error("no current user in the kubeconfig");
  kc.loadFromOptions({
    clusters: admin.clusters,
    contexts: admin.contexts,
    currentContext: admin.currentContext,
    users: admin.users.map((u) => (u.name === current.name ? { ...u, impersonateUser: user } : u)),
  });
  return kc.makeApiClient(k8s.CustomObjectsApi);
}

async function grant(name: string, user: string, rule: k8s.V1PolicyRule): Promise<void> {
  await rbac.createNamespacedRole({ namespace: ns.name, body: { metadata: { name }, rules: [rule] } });
  await rbac.createNamespacedRoleBinding({
    namespace: ns.name,
    body: {
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user }],
    },
  });
}

const createRequest = (api: k8s.CustomObjectsApi, name: string, group: string) =>
  api.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: ns.name,
    plural: RESIZE_REQUEST.plural,
    body: resizeRequest(name, { instanceGroupManager: group, resizeBy: 1 }),
  });

const createBooking = (api: k8s.CustomObjectsApi, name: string, group: string) =>
  api.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: ns.name,
    plural: FUTURE_RESERVATION.plural,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: FUTURE_RESERVATION.kind,
      metadata: { name },
      spec: {
        instanceGroupManager: group,
        totalCount: 1,
        timeWindow: {
          startTime: new Date(Date.now() + 3_600_000).toISOString(),
          duration: { seconds: "60" },
        },
      },
    },
  });

const canCreate = {
  apiGroups: [GROUP],
  resources: [RESIZE_REQUEST.plural, FUTURE_RESERVATION.plural],
  verbs: ["create", "get", "patch"],
};
const canUse = (group: string) => ({
  apiGroups: [GROUP],
  resources: [INSTANCE_GROUP_MANAGER.plural],
  resourceNames: [group],
  verbs: [USE_VERB],
});

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("api-admission");
  const custom = admin.makeApiClient(k8s.CustomObjectsApi);
  for (const group of ["gpu-workers", "cpu-workers"]) {
    await custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: ns.name,
      plural: INSTANCE_GROUP_MANAGER.plural,
      body: instanceGroupManager(group, {
        zone: "local-a",
        targetRef: { apiVersion: "apps/v1", kind: "StatefulSet", name: group },
      }),
    });
  }
  await grant("alice-create", "alice", canCreate);
  await grant("bob-create", "bob", canCreate);
  await grant("bob-use", "bob", canUse("gpu-workers"));
});
afterAll(async () => {
  await ns.remove();
});

test("without `use` on the group, creating a ResizeRequest is denied with a clear message", async () => {
  const alice = impersonating("alice");
  let attempt = 0;
  // A new policy takes a moment to reach the admission plugin; until then creates go through.
  const denied = await eventually("the policy to deny alice", async () => {
    const name = `alice-${++attempt}`;
    try {
      await createRequest(alice, name, "gpu-workers");
    } catch (err) {
      return { code: err instanceof k8s.ApiException ? err.code : 0, message: statusMessage(err) };
    }
    await admin.makeApiClient(k8s.CustomObjectsApi).deleteNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: ns.name,
      plural: RESIZE_REQUEST.plural,
      name,
    });
    return undefined;
  });
  expect(denied.code).toBe(403);
  expect(denied.message).toContain(
    `creating a ResizeRequest requires permission to use instancegroupmanagers/gpu-workers in namespace ${ns.name}: alice lacks verb "use" on it`,
  );
});

test("with `use` on the named group, creating is allowed; another group stays denied", async () => {
  const bob = impersonating("bob");
  const created = (await createRequest(bob, "bob-gpu", "gpu-workers")) as { metadata: { name: string } };
  expect(created.metadata.name).toBe("bob-gpu");
  const { code, message } = await rejection(createRequest(bob, "bob-cpu", "cpu-workers"));
  expect(code).toBe(403);
  expect(message).toContain("requires permission to use instancegroupmanagers/cpu-workers");
});

test("without `create` on resizerequests, RBAC denies before the policy", async () => {
  const { code, message } = await rejection(createRequest(impersonating("carol"), "carol-1", "gpu-workers"));
  expect(code).toBe(403);
  expect(message).toContain('User "carol" cannot create resource "resizerequests"');
});

test("without `use` on the group, creating a FutureReservation is denied with a clear message, and nothing is created", async () => {
  const alice = impersonating("alice");
  const custom = admin.makeApiClient(k8s.CustomObjectsApi);
  const where = { group: GROUP, version: VERSION, namespace: ns.name, plural: FUTURE_RESERVATION.plural };
  let attempt = 0;
  // The policy may have been applied by this run with bookings added to it: wait until it is in force.
  const denied = await eventually("the policy to deny alice's booking", async () => {
    const name = `alice-booking-${++attempt}`;
    try {
      await createBooking(alice, name, "gpu-workers");
    } catch (err) {
      return { name, code: err instanceof k8s.ApiException ? err.code : 0, message: statusMessage(err) };
    }
    await custom.deleteNamespacedCustomObject({ ...where, name });
    return undefined;
  });
  expect(denied.code).toBe(403);
  // The whole answer, as docs/booking.md "Who may book" shows it.
  expect(denied.message).toBe(
    `${FUTURE_RESERVATION.plural}.${GROUP} "${denied.name}" is forbidden: ValidatingAdmissionPolicy '${USE_POLICY_NAME}' with binding '${USE_POLICY_NAME}' denied request: creating a FutureReservation requires permission to use instancegroupmanagers/gpu-workers in namespace ${ns.name}: alice lacks verb "use" on it`,
  );
  const { code } = await rejection(custom.getNamespacedCustomObject({ ...where, name: denied.name }));
  expect(code).toBe(404);
});

test("with `use` on the named group, booking it is allowed; another group stays denied, and a booking cannot be moved to it", async () => {
  const bob = impersonating("bob");
  const created = (await createBooking(bob, "bob-gpu", "gpu-workers")) as { metadata: { name: string } };
  expect(created.metadata.name).toBe("bob-gpu");
  const refused = await rejection(createBooking(bob, "bob-cpu", "cpu-workers"));
  expect(refused.code).toBe(403);
  expect(refused.message).toContain(
    `creating a FutureReservation requires permission to use instancegroupmanagers/cpu-workers in namespace ${ns.name}: bob lacks verb "use" on it`,
  );
  // An update cannot point the booking at a group bob may not use: the spec is immutable but for cancel.
  const moved = await rejection(
    bob.patchNamespacedCustomObject(
      {
        group: GROUP,
        version: VERSION,
        namespace: ns.name,
        plural: FUTURE_RESERVATION.plural,
        name: "bob-gpu",
        body: { spec: { instanceGroupManager: "cpu-workers" } },
      },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    ),
  );
  expect(moved.code).toBe(422);
  expect(moved.message).toContain("instanceGroupManager is immutable: only cancel may change after creation");
});
