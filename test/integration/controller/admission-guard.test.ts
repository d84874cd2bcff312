// No policy, no service (controller/admission-guard.ts), on the real API server: with the binding of the
// policy that checks who may point a group at a target removed, the operator scales no target — the
// group says why (Ready=False AdmissionPolicyMissing, and a Warning Event) and the request waits,
// CREATING, with the target untouched; with the policies back, the same request goes on to SUCCEEDED.
// On b3d6364 the operator scaled the target whatever the policies (the request SUCCEEDED at once).
import { setTimeout as sleep } from "node:timers/promises";
import { TARGET_POLICY_NAME } from "../../../src/api/names.js";
import { createTestNamespace, eventually } from "../../support/kube.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import {
  createGroup,
  createRequest,
  createWorkers,
  getGroup,
  getRequest,
  replicasOf,
  untilState,
} from "../../support/resize.js";
import { installApi, kubectl } from "../api/install.js";
import { listEvents } from "../events/support.js";

let ns: Awaited<ReturnType<typeof createTestNamespace>>;
let operator: OperatorProcess;

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("admission-guard");
  operator = startOperator({ namespace: ns.name, name: "admission-guard-op" });
});
afterAll(async () => {
  await stopAll([operator]);
  // Every later file counts on the policies.
  await installApi();
  await ns.remove();
});

test("without the target policy's binding no target is scaled, the group says why, and the request waits until it is back", async () => {
  await createWorkers(ns.name, "guarded", 0, 0);
  await createGroup(ns.name, "guarded", { maxSize: 4 });
  await kubectl("delete", "validatingadmissionpolicybinding", TARGET_POLICY_NAME);
  await createRequest(ns.name, "guarded-two", { instanceGroupManager: "guarded", resizeBy: 2 });

  const ready = await eventually("the group's Ready=False AdmissionPolicyMissing", async () => {
    const c = (await getGroup(ns.name, "guarded")).status?.conditions?.find((x) => x.type === "Ready");
    return c?.reason === "AdmissionPolicyMissing" ? c : undefined;
  });
  expect(ready.status).toBe("False");
  expect(ready.message).toContain(`no ValidatingAdmissionPolicyBinding binds ${TARGET_POLICY_NAME}`);
  const event = await eventually("the group's AdmissionPolicyMissing Event", async () =>
    (await listEvents(ns.name)).find(
      (e) => e.reason === "AdmissionPolicyMissing" && e.regarding?.name === "guarded",
    ),
  );
  expect(event.type).toBe("Warning");
  // A while longer: the request still waits and the target was never scaled.
  await sleep(3_000);
  expect((await getRequest(ns.name, "guarded-two")).status?.state ?? "CREATING").toBe("CREATING");
  expect((await replicasOf(ns.name, "guarded")).replicas).toBe(0);

  await installApi();
  expect((await untilState(ns.name, "guarded-two", ["SUCCEEDED", "FAILED"])).status?.state).toBe("SUCCEEDED");
  expect((await replicasOf(ns.name, "guarded")).replicas).toBe(2);
});
