// Whom the provisioner serves and trusts, against the real API server with the ProvisioningRequest CRD
// and the operator watching every namespace (what is tested crosses namespaces). Kueue itself is not
// needed: the test writes ProvisioningRequests and PodTemplates as Kueue does. A group serves none until
// its owner names the namespaces; with consent a request is served; a ResizeRequest that only carries a
// request's uid label (in another namespace, or at its place without the owner references) is never
// adopted; a PodTemplate owned by something else sizes nothing. Parameters as Kueue and GKE write them:
// an unknown key is accepted with a Warning Event, and ValidUntilSeconds fails a request not
// provisioned in time (WaitTimeExceeded) and cancels its ResizeRequest.
import { readFileSync } from "node:fs";
import { installProvisioningRequestCrd } from "../../../testbed/kueue.js";
import { ensureTools } from "../../../testbed/tools.js";
import { installApi, kubectl } from "../api/install.js";
import { GROUP } from "../../../src/api/names.js";
import { resizeRequestName } from "../../../src/controllers/provisioning/resize-request.js";
import type { ProvisioningRequest } from "../../../src/api/provisioning-request.js";
import { createTestNamespace, eventually } from "../../support/kube.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { createGroup, createWorkers, custom, core, getRequest } from "../../support/resize.js";
import { PROVISIONING, condition, env, isTrue, type Obj } from "./support.js";

const CLASS = "queued-provisioning.compute.resize-operator.dev";
const SHAPE = { allocatable: { cpu: "4", memory: "16Gi", pods: "110" } };
const UID_LABEL = `${GROUP}/provisioning-request-uid`;

let ns: Awaited<ReturnType<typeof createTestNamespace>>;
let mallory: Awaited<ReturnType<typeof createTestNamespace>>;
let operator: OperatorProcess | undefined;

async function startProvisioner(): Promise<void> {
  operator = startOperator({ namespace: ns.name, name: `consent-${Date.now()}`, watchAllNamespaces: true });
  const { log } = operator;
  await eventually("the operator to serve ProvisioningRequests", () =>
    Promise.resolve(
      readFileSync(log, "utf8").includes('"msg":"serving ProvisioningRequests"') ? true : undefined,
    ),
  );
}

async function stopProvisioner(): Promise<void> {
  if (operator) await stopAll([operator]);
  operator = undefined;
}

/** A PodTemplate of one 1-CPU container, owned by `owner` when given. */
async function podTemplate(
  name: string,
  owner?: { apiVersion: string; kind: string; name: string; uid: string },
) {
  await core.createNamespacedPodTemplate({
    namespace: ns.name,
    body: {
      metadata: { name, ...(owner && { ownerReferences: [owner] }) },
      template: {
        spec: {
          containers: [{ name: "w", image: "registry.invalid/w:1", resources: { requests: { cpu: "1" } } }],
        },
      },
    },
  });
}

/** A ProvisioningRequest of our class for 2 pods of `template`; returns it as created (with its uid). */
async function provisioningRequest(
  name: string,
  template: string,
  parameters: Record<string, string> = {},
): Promise<ProvisioningRequest> {
  return (await custom.createNamespacedCustomObject({
    ...PROVISIONING,
    namespace: ns.name,
    body: {
      apiVersion: `${PROVISIONING.group}/${PROVISIONING.version}`,
      kind: "ProvisioningRequest",
      metadata: { name },
      spec: {
        provisioningClassName: CLASS,
        podSets: [{ podTemplateRef: { name: template }, count: 2 }],
        parameters,
      },
    },
  })) as ProvisioningRequest;
}

const readPr = async (name: string): Promise<Obj> =>
  (await custom.getNamespacedCustomObject({ ...PROVISIONING, namespace: ns.name, name })) as Obj;

const until = (name: string, type: string): Promise<Obj> =>
  eventually(`${type}=True on ${name}`, async () => {
    const pr = await readPr(name);
    return isTrue(pr, type) ? pr : undefined;
  });

/** A ResizeRequest named and labelled for `pr`, written by someone else than the provisioner. */
async function forgedResizeRequest(
  namespace: string,
  pr: ProvisioningRequest,
  owners: object[],
): Promise<string> {
  const name = resizeRequestName(pr);
  await custom.createNamespacedCustomObject({
    group: GROUP,
    version: "v1",
    namespace,
    plural: "resizerequests",
    body: {
      apiVersion: `${GROUP}/v1`,
      kind: "ResizeRequest",
      metadata: {
        name,
        labels: { [UID_LABEL]: pr.metadata.uid ?? "" },
        annotations: { [`${GROUP}/provisioning-request`]: `${ns.name}/${pr.metadata.name ?? ""}` },
        ownerReferences: owners,
      },
      spec: { instanceGroupManager: "workers", resizeBy: 1 },
    },
  });
  return name;
}

const groupOwner = async (namespace: string) => {
  const g = (await custom.getNamespacedCustomObject({
    group: GROUP,
    version: "v1",
    namespace,
    plural: "instancegroupmanagers",
    name: "workers",
  })) as Obj;
  return {
    apiVersion: `${GROUP}/v1`,
    kind: "InstanceGroupManager",
    name: "workers",
    uid: g.metadata.uid ?? "",
  };
};

/** The owner of `namespace`'s group names the namespaces that may draw on it. */
async function setConsent(namespace: string, namespaces: "Same" | "All"): Promise<void> {
  const patch = { spec: { provisioningRequests: { namespaces } } };
  await kubectl("patch", "igm", "workers", "-n", namespace, "--type", "merge", "-p", JSON.stringify(patch));
}

beforeAll(async () => {
  await installApi();
  await installProvisioningRequestCrd(env("KUBECONFIG"), await ensureTools());
  ns = await createTestNamespace("prov-consent");
  mallory = await createTestNamespace("prov-mallory");
  for (const where of [ns.name, mallory.name]) {
    await createWorkers(where, "workers", 0);
    // No spec.provisioningRequests: the owner has not consented to anything.
    await createGroup(where, "workers", { maxSize: 8, instanceShape: SHAPE });
  }
  await podTemplate("plain");
  await startProvisioner();
}, 300_000);

afterAll(async () => {
  await stopProvisioner();
  await ns.remove();
  await mallory.remove();
});

test("a group whose owner named no namespace serves no ProvisioningRequest, not even of its own namespace", async () => {
  await provisioningRequest("unnamed", "plain");
  const unnamed = await until("unnamed", "Failed");
  expect(condition(unnamed, "Failed")).toMatchObject({ reason: "NoQueuedNodepoolAvailable" });
  expect(condition(unnamed, "Failed")?.message).toContain(
    `InstanceGroupManager ${ns.name}/workers allows no namespace (None, the default`,
  );
  expect(condition(unnamed, "Accepted")?.status).toBe("False");

  await provisioningRequest("named", "plain", { instanceGroupManager: "workers" });
  const named = await until("named", "Failed");
  expect(condition(named, "Failed")).toMatchObject({ reason: "NotAllowed" });
  expect(condition(named, "Failed")?.message).toMatch(
    new RegExp(
      `InstanceGroupManager ${ns.name}/workers does not serve ProvisioningRequests of namespace ${ns.name}`,
    ),
  );
  // Each failure is an Event, and no ResizeRequest was made.
  for (const name of ["unnamed", "named"])
    await eventually(`the Failed event of ${name}`, async () => {
      const events = await kubectl("events", "-n", ns.name, "--for", `provisioningrequest/${name}`);
      return /Warning\s+Failed\s/.test(events) ? events : undefined;
    });
  expect(await kubectl("get", "rr", "-n", ns.name, "-o", "name")).toBe("");
});

test("with its owner's consent (namespaces: Same) the group serves the namespace's requests", async () => {
  await setConsent(ns.name, "Same");
  await provisioningRequest("served", "plain");
  const accepted = await until("served", "Accepted");
  expect(condition(accepted, "Accepted")?.message).toMatch(
    new RegExp(
      `^ResizeRequest ${ns.name}/pr-served-[0-9a-f]{10} asks InstanceGroupManager ${ns.name}/workers for 1 instances \\(2 pods\\)`,
    ),
  );
  const provisioned = await until("served", "Provisioned");
  expect(provisioned.status?.provisioningClassDetails).toMatchObject({
    InstanceGroupManager: `${ns.name}/workers`,
  });
});

test("a ResizeRequest in another namespace carrying the request's uid label is never adopted", async () => {
  await stopProvisioner();
  const pr = await provisioningRequest("target", "plain");
  // Mallory's own group there consents to everyone, and owns the forgery: everything but the place fits.
  await setConsent(mallory.name, "All");
  const forged = await forgedResizeRequest(mallory.name, pr, [await groupOwner(mallory.name)]);
  await startProvisioner();

  const accepted = await until("target", "Accepted");
  expect(condition(accepted, "Accepted")?.message).toContain(`ResizeRequest ${ns.name}/${forged} asks`);
  const own = await getRequest(ns.name, forged);
  expect(own.metadata.labels?.[UID_LABEL]).toBe(pr.metadata.uid);
  const provisioned = await until("target", "Provisioned");
  expect(provisioned.status?.provisioningClassDetails).toMatchObject({
    InstanceGroupManager: `${ns.name}/workers`,
  });
  // The forgery was left alone: neither followed nor cancelled.
  expect((await getRequest(mallory.name, forged)).spec.cancel).toBe(false);
});

test("at the request's place, a ResizeRequest without the owner references the provisioner sets fails the request", async () => {
  await stopProvisioner();
  const pr = await provisioningRequest("squatted", "plain", { instanceGroupManager: "workers" });
  const squat = await forgedResizeRequest(ns.name, pr, []);
  await startProvisioner();

  const failed = await until("squatted", "Failed");
  expect(condition(failed, "Failed")).toMatchObject({ reason: "ResizeRequestNotOwned" });
  expect(condition(failed, "Failed")?.message).toContain(
    `ResizeRequest ${ns.name}/${squat} is not the one the provisioner created`,
  );
  expect((await getRequest(ns.name, squat)).spec.cancel).toBe(false);
});

test("a PodTemplate owned by something else than the request sizes nothing", async () => {
  const cm = await core.createNamespacedConfigMap({
    namespace: ns.name,
    body: { metadata: { name: "someone" } },
  });
  await podTemplate("theirs", {
    apiVersion: "v1",
    kind: "ConfigMap",
    name: "someone",
    uid: cm.metadata?.uid ?? "",
  });
  await provisioningRequest("borrowed", "theirs");
  const failed = await until("borrowed", "Failed");
  expect(condition(failed, "Failed")).toMatchObject({ reason: "PodTemplateNotOwned" });
  expect(condition(failed, "Failed")?.message).toContain(
    `PodTemplate ${ns.name}/theirs of a pod set is owned by ConfigMap someone`,
  );
});

test("an unknown parameter key is accepted, named in Accepted=True and in one Warning Event", async () => {
  await provisioningRequest("stray", "plain", { "team-colour": "blue", maxRunDurationSeconds: "3600" });
  const accepted = await until("stray", "Accepted");
  expect(condition(accepted, "Accepted")?.message).toContain('Ignored unknown parameter "team-colour"');
  const events = await eventually("the UnknownParameters event of stray", async () => {
    const text = await kubectl("events", "-n", ns.name, "--for", "provisioningrequest/stray");
    return /Warning\s+UnknownParameters\s.*"team-colour"/.test(text) ? text : undefined;
  });
  expect(events).not.toMatch(/Warning\s+Failed\s/);
  await until("stray", "Provisioned");
});

test("ValidUntilSeconds fails a request its group cannot provision in time: WaitTimeExceeded, ResizeRequest cancelled", async () => {
  // Its workers ask for 9 GPUs, more than any node has (8): they never become ready.
  await createWorkers(ns.name, "gpus", 9);
  await createGroup(ns.name, "gpus", {
    maxSize: 8,
    instanceShape: SHAPE,
    provisioningRequests: { namespaces: "Same" },
  });
  const pr = await provisioningRequest("hurried", "plain", {
    instanceGroupManager: "gpus",
    ValidUntilSeconds: "2",
  });
  const failed = await until("hurried", "Failed");
  expect(condition(failed, "Failed")).toMatchObject({ reason: "WaitTimeExceeded" });
  expect(isTrue(failed, "Provisioned")).toBe(false);
  const created = Date.parse(pr.metadata.creationTimestamp ?? "");
  expect(Date.parse(condition(failed, "Failed")?.lastTransitionTime ?? "")).toBeGreaterThanOrEqual(
    created + 2000,
  );
  await eventually("its ResizeRequest to be cancelled", async () =>
    (await getRequest(ns.name, resizeRequestName(pr))).spec.cancel ? true : undefined,
  );
});
