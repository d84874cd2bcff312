// The throughput benchmark's floor (throughput.ts): a plain client that does, per request, the least a
// correct implementation of the contract must do, so that the operator's figures are ratios against
// what any implementation costs rather than against no work at all:
// - the crash-safe writes of a resize: finalizer, attempt record, /scale, Applied, SUCCEEDED, finalizer
//   removal (6 writes);
// - the contract's status on every status write: `kind`, `id`, `creationTimestamp`, `zone`,
//   `selfLink`, `selfLinkWithId`, `state`, `observedGeneration` and the fewest conditions that say
//   whether an ACCEPTED request is provisioning and that it SUCCEEDED (`Provisioning`, `Succeeded`),
//   each with a readable message; objects as large as the contract makes them cost the API server
//   more to decode, store and send to watchers than a three-field status;
// - the contract's fewest Events: one `ProvisioningStarted` for admission and start in the same step,
//   one `Succeeded`, each `regarding` the request and `related` to the group, with a readable note.
// It starts every request in the pass that admits it, one group per worker at a time as the operator's
// work queue does.
import type { ResizeRequest } from "../src/api/resize-request.js";
import { REPORTING_CONTROLLER } from "../src/api/names.js";
import type { KubeHttp } from "../src/runtime/kube-http.js";
import { pool, rrPath, workloadPath } from "./lib.js";

export const FINALIZER = "compute.resize-operator.dev/finalizer";

export interface Fixture {
  ns: string;
  remove: () => Promise<void>;
  /** Request names per group, in creation order. */
  byGroup: Map<string, string[]>;
}

const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, "Z");

/** The contract's output fields of a request's status, as the REST API projects them. */
function contractFields(
  ns: string,
  group: string,
  rr: ResizeRequest,
  index: number,
): Record<string, unknown> {
  const zone = `http://127.0.0.1/compute/v1/projects/${ns}/zones/local-a`;
  const base = `${zone}/instanceGroupManagers/${group}/resizeRequests`;
  const id = String(5_000_000_000_000 + index);
  return {
    kind: "compute#instanceGroupManagerResizeRequest",
    id,
    creationTimestamp: rr.metadata.creationTimestamp,
    zone,
    selfLink: `${base}/${rr.metadata.name ?? ""}`,
    selfLinkWithId: `${base}/${id}`,
    observedGeneration: rr.metadata.generation ?? 1,
  };
}

const condition = (type: string, status: "True" | "False", reason: string, message: string) => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: now(),
  observedGeneration: 1,
});

/** Runs the floor over `f` with `concurrency` workers; resolves once its Events are written too. */
export async function runFloor(http: KubeHttp, f: Fixture, concurrency: number): Promise<void> {
  const path = rrPath(f.ns);
  const events: Promise<unknown>[] = [];
  let serial = 0;
  const emit = (rr: ResizeRequest, group: string, reason: string, action: string, note: string): void => {
    const ms = Date.now();
    const ref = { apiVersion: rr.apiVersion, namespace: f.ns };
    events.push(
      http.request("POST", `/apis/events.k8s.io/v1/namespaces/${f.ns}/events`, {
        body: {
          apiVersion: "events.k8s.io/v1",
          kind: "Event",
          metadata: { name: `${rr.metadata.name ?? ""}.${ms}${String(serial++).padStart(6, "0")}` },
          eventTime: new Date(ms).toISOString().replace("Z", "000Z"),
          reportingController: REPORTING_CONTROLLER,
          reportingInstance: "bench-floor-0",
          type: "Normal",
          reason,
          action,
          note,
          regarding: { ...ref, kind: rr.kind, name: rr.metadata.name, uid: rr.metadata.uid },
          related: { ...ref, kind: "InstanceGroupManager", name: group },
        },
      }),
    );
  };
  let index = 0;
  await pool([...f.byGroup.entries()], concurrency, async ([group, names]) => {
    let replicas = 0;
    for (const name of names) {
      const base = replicas;
      let rr = (await http.request("PATCH", `${path}/${name}`, {
        body: { metadata: { finalizers: [FINALIZER] } },
        contentType: "application/merge-patch+json",
      })) as ResizeRequest;
      const fields = contractFields(f.ns, group, rr, index++);
      const raising = `Attempt 1: raising Workload/${group} from ${String(base)} to ${String(base + 1)} replicas.`;
      const provisioning = {
        attempt: 1,
        phase: "Applying",
        baseReplicas: base,
        targetReplicas: base + 1,
        startedTime: now(),
      };
      const started = condition("Provisioning", "True", "Provisioning", raising);
      rr = (await http.request("PUT", `${path}/${name}/status`, {
        body: {
          ...rr,
          status: { ...fields, state: "ACCEPTED", attempts: 1, provisioning, conditions: [started] },
        },
      })) as ResizeRequest;
      emit(rr, group, "ProvisioningStarted", "ScaleUp", raising);
      await http.request("PATCH", `${workloadPath(f.ns)}/${group}/scale`, {
        body: { spec: { replicas: base + 1 } },
        contentType: "application/merge-patch+json",
      });
      replicas = base + 1;
      const applied = { ...provisioning, phase: "Applied", appliedTime: now() };
      rr = (await http.request("PUT", `${path}/${name}/status`, {
        body: {
          ...rr,
          status: { ...fields, state: "ACCEPTED", attempts: 1, provisioning: applied, conditions: [started] },
        },
      })) as ResizeRequest;
      const ready = `All 1 instances are ready (target at ${String(base + 1)} replicas).`;
      const conditions = [
        condition("Provisioning", "False", "Provisioned", ready),
        condition("Succeeded", "True", "Provisioned", ready),
      ];
      rr = (await http.request("PUT", `${path}/${name}/status`, {
        body: {
          ...rr,
          status: { ...fields, state: "SUCCEEDED", attempts: 1, succeededTime: now(), conditions },
        },
      })) as ResizeRequest;
      emit(rr, group, "Succeeded", "Provision", ready);
      await http.request("PATCH", `${path}/${name}`, {
        body: { metadata: { resourceVersion: rr.metadata.resourceVersion, finalizers: [] } },
        contentType: "application/merge-patch+json",
      });
    }
  });
  await Promise.all(events);
}
