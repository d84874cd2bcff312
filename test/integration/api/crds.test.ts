// The generated CRDs against the real API server: samples are accepted, every invalid object of the
// shared table is rejected with its message, transitions follow the rules, kubectl shows the model.
import * as k8s from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { InstanceGroupManager, ResizeRequest } from "../../../src/api/index.js";
import { GROUP, VERSION } from "../../../src/api/names.js";
import { readinessSource } from "../../../src/api/readiness.js";
import { invalidCreates, invalidUpdates, resizeRequest } from "../../support/api-cases.js";
import { createTestNamespace, kubeConfig } from "../../support/kube.js";
import { installApi, kubectl, rejection, repoRoot } from "./install.js";

const custom = kubeConfig().makeApiClient(k8s.CustomObjectsApi);
const mergePatch = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch);
let ns: Awaited<ReturnType<typeof createTestNamespace>>;

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("api-crds");
});
afterAll(async () => {
  await ns.remove();
});

/** Request parameters for the test namespace; resizerequests unless `extra` names another plural. */
function rrApi<T extends object>(extra: T) {
  return { group: GROUP, version: VERSION, namespace: ns.name, plural: "resizerequests", ...extra };
}

describe("samples", () => {
  const samplesDir = path.join(repoRoot, "manifests/samples");

  test("apply cleanly, and read back they are what the zod model describes", async () => {
    const out = await kubectl("apply", "-n", ns.name, "-f", "manifests/samples/");
    // Files only, as `kubectl apply -f DIR` reads them: samples/kueue/ is `npm run dev -- --kueue`'s.
    const docs = readdirSync(samplesDir, { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .flatMap((f) =>
        parseAllDocuments(readFileSync(path.join(samplesDir, f), "utf8")).map(
          (d) => d.toJS() as { kind: string },
        ),
      );
    expect(out.trim().split("\n")).toHaveLength(docs.length);
    expect(docs.map((d) => d.kind).sort()).toEqual(
      expect.arrayContaining(["InstanceGroupManager", "ResizeRequest", "StatefulSet"]),
    );

    const igm: unknown = await custom.getNamespacedCustomObject(
      rrApi({ plural: "instancegroupmanagers", name: "gpu-workers" }),
    );
    // Defaults come from the model too; the ready count's source is defaulted by the operator, not
    // stored (readiness.nodeSelector is the other source, exclusive with readyReplicasField).
    const spec = InstanceGroupManager.parse(igm).spec;
    expect(spec).toMatchObject({ minSize: 0, provisioningTimeout: "10m" });
    expect(spec.readyReplicasField).toBeUndefined();
    expect(readinessSource(spec)).toEqual({ kind: "field", path: "status.readyReplicas" });
    const list = (await custom.listNamespacedCustomObject(rrApi({}))) as { items: unknown[] };
    const requests = list.items.map((item) => ResizeRequest.parse(item));
    expect(requests.map((r) => r.metadata.name).sort()).toEqual(["ci-named", "eval-2", "train-8x4h"]);
    expect(requests.every((r) => !r.spec.cancel)).toBe(true);
    expect(requests.find((r) => r.metadata.name === "train-8x4h")?.spec.requestedRunDuration).toEqual({
      seconds: "14400",
    });
  });
});

describe("invalid objects are rejected with a clear message", () => {
  test.each(invalidCreates)("create: $title", async ({ plural, object, apiServer }) => {
    const { code, message } = await rejection(
      custom.createNamespacedCustomObject(rrApi({ plural, body: object })),
    );
    expect(code).toBe(422);
    expect(message).toContain(apiServer);
  });

  let serial = 0;
  test.each(invalidUpdates)("update: $title", async ({ spec, subresource, patches, apiServer }) => {
    const name = `update-${++serial}`;
    await custom.createNamespacedCustomObject(
      rrApi({ body: resizeRequest(name, { instanceGroupManager: "gpu-workers", ...spec }) }),
    );
    const patch = (body: object) =>
      subresource === "status"
        ? custom.patchNamespacedCustomObjectStatus(rrApi({ name, body }), mergePatch)
        : custom.patchNamespacedCustomObject(rrApi({ name, body }), mergePatch);
    const last = patches.at(-1);
    for (const body of patches.slice(0, -1)) await patch(body);
    if (last === undefined) throw new Error("a case needs at least one patch");
    const { code, message } = await rejection(patch(last));
    expect(code).toBe(422);
    expect(message).toContain(apiServer);
  });
});

describe("allowed changes", () => {
  test("cancel goes from false to true, and a controller can write a full status", async () => {
    const name = "cancel-ok";
    await custom.createNamespacedCustomObject(
      rrApi({ body: resizeRequest(name, { instanceGroupManager: "gpu-workers", resizeBy: 4 }) }),
    );
    await custom.patchNamespacedCustomObject(rrApi({ name, body: { spec: { cancel: true } } }), mergePatch);
    const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    const status = {
      kind: "compute#instanceGroupManagerResizeRequest",
      id: "18446744073709551615",
      creationTimestamp: now,
      zone: "https://resize.example/compute/v1/projects/p/zones/local-a",
      state: "ACCEPTED",
      reason: "Provisioning",
      selfLink:
        "https://resize.example/compute/v1/projects/p/zones/local-a/instanceGroupManagers/g/resizeRequests/x",
      selfLinkWithId:
        "https://resize.example/compute/v1/projects/p/zones/local-a/instanceGroupManagers/g/resizeRequests/1",
      lastAttempt: {
        error: {
          errors: [
            {
              code: "ZONE_RESOURCE_POOL_EXHAUSTED",
              message: "2 of 4 instances ready after 10m",
              errorDetails: [
                { errorInfo: { reason: "PROVISIONING_TIMEOUT", domain: GROUP, metadatas: { ready: "2" } } },
                { help: { links: [{ description: "Resize requests", url: "https://resize.example/docs" }] } },
                { localizedMessage: { locale: "en-US", message: "Not enough room" } },
              ],
            },
          ],
        },
      },
      attempts: 2,
      nextAttemptTime: now,
      provisioning: {
        attempt: 2,
        phase: "Applied",
        baseReplicas: 3,
        targetReplicas: 7,
        startedTime: now,
        appliedTime: now,
        deadline: now,
      },
      operations: [
        { name: "operation-1-abc", operationType: "compute.instanceGroupManagerResizeRequests.insert" },
      ],
      conditions: [
        { type: "Accepted", status: "True", reason: "Admitted", message: "", lastTransitionTime: now },
        {
          type: "Provisioning",
          status: "True",
          reason: "Attempt",
          message: "attempt 2",
          lastTransitionTime: now,
        },
      ],
      observedGeneration: 2,
    };
    const written: unknown = await custom.patchNamespacedCustomObjectStatus(
      rrApi({ name, body: { status } }),
      mergePatch,
    );
    const parsed = ResizeRequest.parse(written);
    expect(parsed.spec.cancel).toBe(true);
    expect(parsed.status).toEqual(status);
  });
});

test("a group cannot move: zone and region are immutable, and a regional group is valid", async () => {
  const body = (spec: Record<string, unknown>) => ({
    apiVersion: `${GROUP}/${VERSION}`,
    kind: "InstanceGroupManager",
    metadata: { name: "mover" },
    spec: { targetRef: { apiVersion: "apps/v1", kind: "StatefulSet", name: "x" }, ...spec },
  });
  await custom.createNamespacedCustomObject(
    rrApi({ plural: "instancegroupmanagers", body: body({ region: "local" }) }),
  );
  for (const patch of [{ spec: { region: "other" } }, { spec: { region: null, zone: "local-a" } }]) {
    const { code, message } = await rejection(
      custom.patchNamespacedCustomObject(
        rrApi({ plural: "instancegroupmanagers", name: "mover", body: patch }),
        mergePatch,
      ),
    );
    expect(code).toBe(422);
    expect(message).toContain("is immutable: a group cannot move to another zone or region");
  }
});

test("a group counting from Nodes: a Karpenter NodePool, and a group created with the former default readyReplicasField", async () => {
  const igm = (name: string, spec: Record<string, unknown>) =>
    rrApi({
      plural: "instancegroupmanagers",
      body: { apiVersion: `${GROUP}/${VERSION}`, kind: "InstanceGroupManager", metadata: { name }, spec },
    });
  const nodeSelector = { "karpenter.sh/nodepool": "gpu" };
  await custom.createNamespacedCustomObject(
    igm("karpenter-gpu", {
      zone: "local-a",
      targetRef: { apiVersion: "karpenter.sh/v1", kind: "NodePool", name: "gpu" },
      readiness: { nodeSelector },
    }),
  );
  // Groups of earlier versions were stored with readyReplicasField defaulted: adding a node selector
  // (kubectl apply leaves a field it did not set) is accepted, and the field then plays no part.
  await custom.createNamespacedCustomObject(
    igm("legacy", {
      zone: "local-a",
      targetRef: { apiVersion: "apps/v1", kind: "StatefulSet", name: "x" },
      readyReplicasField: "status.readyReplicas",
    }),
  );
  const patched: unknown = await custom.patchNamespacedCustomObject(
    rrApi({
      plural: "instancegroupmanagers",
      name: "legacy",
      body: { spec: { readiness: { nodeSelector } } },
    }),
    mergePatch,
  );
  expect(readinessSource(InstanceGroupManager.parse(patched).spec)).toEqual({ kind: "nodes", nodeSelector });
});

describe("kubectl", () => {
  test("an instance with preservedState is refused by name (strict field validation)", async () => {
    const file = path.join(repoRoot, ".local", `rr-stateful-${ns.name}.json`);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(
      file,
      JSON.stringify(
        resizeRequest("stateful", {
          instanceGroupManager: "gpu-workers",
          instances: [{ name: "a", preservedState: { metadata: { k: "v" } } }],
        }),
      ),
    );
    await expect(kubectl("apply", "-n", ns.name, "-f", file)).rejects.toThrow(
      /unknown field "spec\.instances\[0\]\.preservedState"/,
    );
  });

  test("explain rr.spec.requestedRunDuration prints the field descriptions", async () => {
    const out = await kubectl("explain", "rr.spec.requestedRunDuration");
    expect(out).toContain("KIND:       ResizeRequest");
    expect(out).toMatch(/How long the instances created by the request run/);
    expect(out).toMatch(/seconds\s+<string>\s+Whole seconds of the duration/);
    expect(out).toMatch(/nanos\s+<integer>\s+Fraction of a second at nanosecond resolution/);
  });

  test("get rr and get igm show the printer columns; get resize lists both kinds", async () => {
    const rr = await kubectl("get", "rr", "-n", ns.name);
    expect(rr.split("\n")[0]?.split(/\s+/).filter(Boolean)).toEqual([
      "NAME",
      "GROUP",
      "RESIZE-BY",
      "STATE",
      "REASON",
      "AGE",
    ]);
    expect(rr).toMatch(/train-8x4h\s+gpu-workers\s+8\s/);
    const igm = await kubectl("get", "igm", "-n", ns.name);
    expect(igm.split("\n")[0]?.split(/\s+/).filter(Boolean)).toEqual([
      "NAME",
      "ZONE",
      "REGION",
      "TARGET",
      "SIZE",
      "READY",
      "MAX",
      "AGE",
    ]);
    expect(igm).toMatch(/gpu-workers\s+local-a\s+gpu-workers\s+16\s/);
    const all = await kubectl("get", "resize", "-n", ns.name, "-o", "name");
    expect(all).toContain("instancegroupmanager.compute.resize-operator.dev/gpu-workers");
    expect(all).toContain("resizerequest.compute.resize-operator.dev/train-8x4h");
  });

  test("field selectors on the group name", async () => {
    const out = await kubectl(
      "get",
      "rr",
      "-n",
      ns.name,
      "--field-selector",
      "spec.instanceGroupManager=gpu-workers",
      "-o",
      "name",
    );
    expect(out).toContain("resizerequest.compute.resize-operator.dev/eval-2");
  });
});
