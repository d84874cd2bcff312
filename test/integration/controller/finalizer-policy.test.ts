// The finalizer written by the API server. With the generated MutatingAdmissionPolicy bound to a
// namespace, a ResizeRequest is created carrying the operator's finalizer, and the operator never
// writes it (no version of the object, as a watch delivers every write, shows a finalizer field owned
// by a manager); without the policy the operator adds it itself, before it records the attempt. Both
// remove it when the request is released, and malformed requests get the CRD schema's own message.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { FINALIZER, GROUP, RESIZE_REQUEST, VERSION } from "../../../src/api/names.js";
import type { ResizeRequest } from "../../../src/api/resize-request.js";
import { asListed, httpListWatch } from "../../../src/runtime/list-watch.js";
import { KubeHttp } from "../../../src/runtime/kube-http.js";
import { finalizerPolicy, finalizerPolicyBinding } from "../../../src/generate/finalizer-policy.js";
import { installApi, kubectl, rejection } from "../api/install.js";
import { createTestNamespace, eventually, kubeConfig } from "../../support/kube.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { createGroup, createRequest, createWorkers, custom, untilState } from "../../support/resize.js";

type Namespace = Awaited<ReturnType<typeof createTestNamespace>>;

/** Every version of every request of a namespace, in the order the API server wrote them. */
interface Version {
  readonly type: string;
  readonly object: ResizeRequest;
}

let withPolicy: Namespace;
let withoutPolicy: Namespace;
let dir: string;
let policyFile: string;
const operators: OperatorProcess[] = [];
const watches: AbortController[] = [];
const versions = new Map<string, Version[]>();
const http = new KubeHttp(kubeConfig());

const api = (namespace: string) => ({
  group: GROUP,
  version: VERSION,
  namespace,
  plural: RESIZE_REQUEST.plural,
});

async function watchRequests(namespace: string): Promise<void> {
  const seen: Version[] = [];
  versions.set(namespace, seen);
  const lw = httpListWatch(
    http,
    `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${RESIZE_REQUEST.plural}`,
  );
  const ctl = new AbortController();
  watches.push(ctl);
  const { resourceVersion } = await lw.list(ctl.signal, asListed);
  // Longer than the file runs; a watch that ends early shows as versions missing, and the tests fail.
  void lw
    .watch({ resourceVersion, timeoutSeconds: 900, signal: ctl.signal }, (e) => {
      if (e.type !== "BOOKMARK") seen.push({ type: e.type, object: e.object as unknown as ResizeRequest });
    })
    .catch(() => undefined);
}

const of = (namespace: string, name: string): ResizeRequest[] =>
  (versions.get(namespace) ?? []).filter((v) => v.object.metadata.name === name).map((v) => v.object);

const holds = (rr: ResizeRequest): boolean => (rr.metadata.finalizers ?? []).includes(FINALIZER);

interface ManagedFields {
  readonly managedFields?: readonly { readonly manager?: string; readonly fieldsV1?: unknown }[];
}

/** Managers that own metadata.finalizers in this version of the object (managedFields). */
const finalizerOwners = (rr: ResizeRequest): string[] =>
  ((rr.metadata as ManagedFields).managedFields ?? [])
    .filter((f) => JSON.stringify(f.fieldsV1 ?? {}).includes('"f:finalizers"'))
    .map((f) => f.manager ?? "");

/** Runs one request to SUCCEEDED and returns its versions once the finalizer is gone again. */
async function provision(namespace: string, name: string): Promise<ResizeRequest[]> {
  await createWorkers(namespace, name, 0);
  await createGroup(namespace, name, { maxSize: 4 });
  await createRequest(namespace, name, { instanceGroupManager: name, resizeBy: 1 });
  await untilState(namespace, name, ["SUCCEEDED"], 90_000);
  const summary = (seen: ResizeRequest[]): string =>
    seen.map((rr) => `${rr.status?.state ?? "-"}/${holds(rr) ? "held" : "free"}`).join(", ");
  return eventually(`${name}: the finalizer removed and seen by the watch`, () => {
    const seen = of(namespace, name);
    const last = seen.at(-1);
    if (last?.status?.state === "SUCCEEDED" && !holds(last)) return Promise.resolve(seen);
    return Promise.reject(new Error(`versions seen: ${summary(seen)}`));
  });
}

beforeAll(async () => {
  await installApi();
  withPolicy = await createTestNamespace("finalizer-policy");
  withoutPolicy = await createTestNamespace("finalizer-operator");
  // The generated objects, the binding scoped to one namespace: the policy is cluster-wide, and the
  // other namespace stands for a cluster without it.
  const binding = finalizerPolicyBinding();
  const scoped = {
    ...binding,
    metadata: { ...binding.metadata, name: `test-${withPolicy.name}` },
    spec: {
      ...binding.spec,
      matchResources: {
        namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": withPolicy.name } },
      },
    },
  };
  dir = mkdtempSync(path.join(tmpdir(), "finalizer-policy-"));
  policyFile = path.join(dir, "policy.yaml");
  writeFileSync(policyFile, [finalizerPolicy(), scoped].map((o) => stringify(o)).join("---\n"));
  await kubectl("apply", "--server-side", "-f", policyFile);
  // Policies take effect asynchronously: a server-side dry run goes through admission and shows when.
  await eventually("the finalizer policy is in effect", async () => {
    const probe = (await custom.createNamespacedCustomObject({
      ...api(withPolicy.name),
      dryRun: "All",
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: RESIZE_REQUEST.kind,
        metadata: { name: "probe" },
        spec: { instanceGroupManager: "probe", resizeBy: 1 },
      },
    })) as ResizeRequest;
    return holds(probe) ? true : undefined;
  });
  for (const ns of [withPolicy, withoutPolicy]) {
    await watchRequests(ns.name);
    operators.push(startOperator({ namespace: ns.name, name: "finalizer-op" }));
  }
}, 120_000);

afterAll(async () => {
  for (const w of watches) w.abort();
  await stopAll(operators);
  await kubectl("delete", "-f", policyFile, "--ignore-not-found").catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
  await Promise.all([withPolicy.remove(), withoutPolicy.remove()]);
});

test("with the policy, the request is created with the finalizer and the operator never writes it", async () => {
  const seen = await provision(withPolicy.name, "with-policy");
  const [created] = seen;
  expect(created && holds(created)).toBe(true);
  // Held from creation until the release, then dropped once: never added back, never added by a write.
  const held = seen.map(holds);
  expect(held.indexOf(false)).toBe(held.length - 1);
  // No manager owns the field: the API server set it in admission, nobody patched it.
  expect(seen.flatMap(finalizerOwners)).toEqual([]);
  // Still a crash-safe attempt: its record was written while the finalizer was on.
  expect(seen.some((rr) => holds(rr) && rr.status?.provisioning?.phase === "Applying")).toBe(true);
}, 150_000);

test("without the policy, the operator adds the finalizer before recording the attempt", async () => {
  const seen = await provision(withoutPolicy.name, "without-policy");
  const [created] = seen;
  expect(created && holds(created)).toBe(false);
  const added = seen.findIndex(holds);
  const recorded = seen.findIndex((rr) => rr.status?.provisioning !== undefined);
  expect(added).toBeGreaterThan(0);
  expect(added).toBeLessThan(recorded);
  // Added by a write of the operator (its merge patch owns the field), removed on release.
  expect(finalizerOwners(seen[added] as ResizeRequest)).toHaveLength(1);
  expect(seen.slice(added).map(holds).indexOf(false)).toBe(seen.length - added - 1);
}, 150_000);

test("with the policy, malformed requests are rejected with the CRD schema's message", async () => {
  const create = (spec: Record<string, unknown>) =>
    custom.createNamespacedCustomObject({
      ...api(withPolicy.name),
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: RESIZE_REQUEST.kind,
        metadata: { name: "malformed" },
        spec: { instanceGroupManager: "with-policy", ...spec },
      },
    });
  // A wrong type makes the policy's merge fail; the policy steps aside (failurePolicy Ignore), so the
  // answer is the schema's, not "error applying patch".
  const wrongType = await rejection(create({ resizeBy: "two" }));
  expect(wrongType.code).toBe(422);
  expect(wrongType.message).toContain("spec.resizeBy in body must be of type integer");
  expect(wrongType.message).not.toContain("policy");
  const zero = await rejection(create({ resizeBy: 0 }));
  expect(zero.code).toBe(422);
  expect(zero.message).toContain("spec.resizeBy in body should be greater than or equal to 1");
});
