// cancel and delete retried with their requestId while the first try is still in flight
// (docs/reliability.md, linearizability V2): the retry's requestId lookup runs before the first try
// records its Operation, its read of the request after the first try deleted (or cancelled) it; the
// retry is answered with the first try's Operation, not with the refusal.
import pino from "pino";
import type { Operation } from "../../../src/api/operation.js";
import { INSTANCE_GROUP_MANAGERS } from "../../../src/api/kinds.js";
import { RequestIdConflictError } from "../../../src/operations/scripts.js";
import { ApiError } from "../../../src/runtime/api-errors.js";
import type { RestDeps } from "../../../src/rest/deps.js";
import { cancel, remove } from "../../../src/rest/resize-requests.js";
import type { CallContext } from "../../../src/rest/route.js";

const first = { name: "operation-1", status: "DONE" } as Operation;
const group = { metadata: { name: "g", uid: "u" }, spec: { zone: "z" } };

/** The first try's state as the retry sees it: `bound` after the first requestId lookup, `request` as read. */
function retry(bound: boolean, request: unknown) {
  let lookups = 0;
  const store = {
    getByRequestId: () => Promise.resolve(bound && lookups++ > 0 ? first : undefined),
  };
  const kube = {
    resource: (def: unknown) => ({
      get: () => Promise.resolve(def === INSTANCE_GROUP_MANAGERS ? group : request),
    }),
  };
  return {
    params: { project: "p", zone: "z", instanceGroupManager: "g", resizeRequest: "r", requestId: "rid" },
    body: undefined,
    user: { username: "alice", groups: [] },
    log: pino({ level: "silent" }),
    signal: new AbortController().signal,
    deps: { kube, store } as unknown as RestDeps,
  } as unknown as CallContext<Parameters<typeof remove>[0]["params"]>;
}

/** What a read finds once the first try deleted the request: nothing of this group. */
const gone = { metadata: { name: "r" }, spec: { instanceGroupManager: "another" } };
const cancelled = {
  metadata: { name: "r", uid: "u1" },
  spec: { instanceGroupManager: "g" },
  status: { state: "CANCELLED" },
};

test("a delete retried while its first try deletes the request gets the first try's Operation, not 404", async () => {
  await expect(remove(retry(true, gone))).resolves.toEqual({ body: first });
  await expect(remove(retry(false, gone))).rejects.toMatchObject({ status: 404 });
});

test("a cancel retried while its first try cancels the request gets the first try's Operation", async () => {
  await expect(cancel(retry(true, cancelled))).resolves.toEqual({ body: first });
  await expect(cancel(retry(false, cancelled))).rejects.toThrow(/can no longer be cancelled/);
});

test("a delete refused while another call bound its requestId (an insert that created the request) is answered as bound", async () => {
  const call = retry(false, { metadata: { name: "r", uid: "u1" }, spec: { instanceGroupManager: "g" } });
  let lookups = 0;
  (call.deps.store as unknown as { getByRequestId: () => Promise<Operation | undefined> }).getByRequestId =
    () => (lookups++ === 0 ? Promise.resolve(undefined) : Promise.reject(new RequestIdConflictError("rid")));
  await expect(remove(call)).rejects.toBeInstanceOf(RequestIdConflictError);
});

test("a delete whose request was replaced under its name before the delete reached it is made again on the new one", async () => {
  // Found under an API-server restart: delete read the CANCELLED request, another delete removed it and
  // an insert created the name again; the uid precondition failed and the cluster's 409 was answered.
  const reads = [
    {
      metadata: { name: "r", uid: "u1" },
      spec: { instanceGroupManager: "g" },
      status: { state: "CANCELLED" },
    },
    {
      metadata: { name: "r", uid: "u2" },
      spec: { instanceGroupManager: "g" },
      status: { state: "ACCEPTED" },
    },
  ];
  const undone: string[] = [];
  const store = {
    getByRequestId: () => Promise.resolve(undefined),
    create: (operation: Operation) => Promise.resolve({ operation, created: true }),
    get: () => Promise.resolve({ name: "operation-1", status: "PENDING" }),
    delete: (ref: { name: string }) => {
      undone.push(ref.name);
      return Promise.resolve(true);
    },
  };
  const kube = {
    resource: (def: unknown) => ({
      get: () => Promise.resolve(def === INSTANCE_GROUP_MANAGERS ? group : reads.shift()),
      delete: () => Promise.reject(new ApiError(409, "Conflict", "Precondition failed: UID in precondition")),
    }),
  };
  const call = retry(false, undefined);
  Object.assign(call.deps, { kube, store, now: () => 0, publicUrl: "http://x" });
  await expect(remove(call)).rejects.toMatchObject({ status: 400, reason: "invalidResourceUsage" });
  expect(undone).toHaveLength(1);
});
