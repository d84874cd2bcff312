// What a pass of the provisioner reads as the request's ResizeRequest, on the real caches (Store with the
// controller's indexes) and the in-memory API server: only the one at the place recorded at acceptance
// (a live read when the cache has not seen it yet), or before acceptance the namesakes in the groups'
// namespaces; a ResizeRequest elsewhere that carries the request's uid label and annotation is never it.
import type { FutureReservation } from "../../../src/api/future-reservation.js";
import type { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import { POD_TEMPLATES, RESIZE_REQUESTS } from "../../../src/api/kinds.js";
import { CONSUME_ANNOTATION, type ProvisioningRequest } from "../../../src/api/provisioning-request.js";
import type { ResizeRequest } from "../../../src/api/resize-request.js";
import { REQUEST_INDEXERS } from "../../../src/cache/indexes.js";
import { decideProvisioning } from "../../../src/controllers/provisioning/decide.js";
import { createResizeRequest } from "../../../src/controllers/provisioning/execute.js";
import {
  consumptionCache,
  observeProvisioning,
  podSelector,
} from "../../../src/controllers/provisioning/observe.js";
import { PODS } from "../../../src/runtime/builtin-kinds.js";
import { Store } from "../../../src/runtime/store.js";
import { FakeKube } from "../../support/fake-kube.js";
import { HOUR, T0, at, cond, gpuPod, group, pr, rr, template } from "./fixtures.js";

const NAME = "pr-job-a-prov-1-0f1e2d3c4b";
const accepted = [cond("Accepted", "True", "SuccessfullyQueued"), cond("Provisioned", "False", "Queued")];
const recorded = { ResizeRequestName: NAME, InstanceGroupManager: "team-a/gpu" };

/** The request's uid label and annotation, in `namespace`, owned by that namespace's own group. */
function forgedIn(namespace: string): ResizeRequest {
  const base = rr({ state: "SUCCEEDED" });
  return {
    ...base,
    metadata: {
      ...base.metadata,
      namespace,
      ownerReferences: [
        {
          apiVersion: "compute.resize-operator.dev/v1",
          kind: "InstanceGroupManager",
          name: "gpu",
          uid: `uid-${namespace}-gpu`,
        },
      ],
    },
  };
}

function world(o: {
  request: ProvisioningRequest;
  cached?: readonly ResizeRequest[];
  stored?: readonly ResizeRequest[];
  groups?: readonly InstanceGroupManager[];
}) {
  const requests = new Store<ProvisioningRequest>();
  requests.set(o.request);
  const resizeRequests = new Store<ResizeRequest>(REQUEST_INDEXERS);
  for (const x of o.cached ?? []) resizeRequests.set(x);
  const groups = new Store<InstanceGroupManager>();
  for (const g of o.groups ?? [group(), group("gpu", "mallory")]) groups.set(g);
  const client = new FakeKube();
  for (const x of o.stored ?? []) client.seed(RESIZE_REQUESTS, x);
  const deps = {
    provisioningRequests: requests,
    resizeRequests,
    groups,
    client,
    now: () => T0,
    consumption: consumptionCache(),
    retentionMs: HOUR,
  };
  return { client, observe: () => observeProvisioning(deps, "team-a", "job-a-prov-1") };
}

async function snapshotOf(w: ReturnType<typeof world>) {
  const s = await w.observe();
  if (!s.request) throw new Error("not ours");
  return s;
}

test("a new request: a namesake in another group's namespace is no candidate; the request gets its own", async () => {
  const w = world({ request: pr(), cached: [forgedIn("mallory")] });
  const s = await snapshotOf(w);
  expect(s.resizeRequest).toBeUndefined();
  const plan = decideProvisioning({ ...s, templates: new Map([...s.templates]) });
  // The template is missing from the in-memory API server: the decision fails on it, never follows the forgery.
  expect(plan.create).toBeUndefined();
  expect(plan.status?.conditions.find((c) => c.type === "Failed")?.reason).toBe("MissingPodTemplates");
  expect(s.namesakes.map((x) => x.metadata.namespace)).toEqual(["mallory"]);
});

test("accepted: only the recorded place is read — the cache, else one live get; a forgery elsewhere is ignored", async () => {
  const request = pr({ conditions: accepted, details: recorded });
  const mine = rr({ state: "ACCEPTED" });
  const cached = await snapshotOf(world({ request, cached: [forgedIn("mallory"), mine] }));
  expect(cached.resizeRequest?.metadata.namespace).toBe("team-a");

  const live = world({ request, cached: [forgedIn("mallory")], stored: [mine] });
  expect((await snapshotOf(live)).resizeRequest?.metadata.namespace).toBe("team-a");
  expect(live.client.calls).toEqual([
    { verb: "get", resource: "resizerequests", namespace: "team-a", name: NAME },
  ]);

  // Its own gone, a forged one elsewhere (cache and API server): the request's ResizeRequest was deleted.
  const gone = world({ request, cached: [forgedIn("mallory")], stored: [forgedIn("mallory")] });
  const s = await snapshotOf(gone);
  expect(s.resizeRequest).toBeUndefined();
  expect(decideProvisioning(s).status?.conditions.find((c) => c.type === "Failed")?.reason).toBe(
    "MissingResizeRequest",
  );
});

test("accepted by a release that did not record the place: its Accepted message names it", async () => {
  const message = `ResizeRequest team-a/${NAME} asks InstanceGroupManager team-a/gpu for 4 instances (4 pods).`;
  const request = pr({
    conditions: [
      { ...cond("Accepted", "True", "SuccessfullyQueued"), message },
      cond("Provisioned", "False", "Queued"),
    ],
  });
  const s = await snapshotOf(world({ request, cached: [forgedIn("mallory"), rr({ state: "ACCEPTED" })] }));
  expect(s.resizeRequest?.metadata.namespace).toBe("team-a");
  const forgedOnly = await snapshotOf(world({ request, cached: [forgedIn("mallory")] }));
  expect(forgedOnly.resizeRequest).toBeUndefined();
});

test("creating: an existing one of the same name counts as created only if made for the request", async () => {
  const mine = rr(undefined);
  const client = new FakeKube();
  client.seed(RESIZE_REQUESTS, mine);
  await expect(createResizeRequest(client, pr(), mine)).resolves.toBeUndefined();
  const squatted = new FakeKube();
  squatted.seed(RESIZE_REQUESTS, { ...mine, metadata: { ...mine.metadata, ownerReferences: [] } });
  await expect(createResizeRequest(squatted, pr(), mine)).rejects.toThrow(
    /is not the one the provisioner created/,
  );
});

describe("whether a pod consumes the capacity", () => {
  const provisionedAt0 = [cond("Accepted", "True", "Accepted"), cond("Provisioned", "True", "Provisioned")];
  const request = pr({ conditions: provisionedAt0, details: recorded });
  const labelled = {
    ...template("ppt-job-a-prov-1-main", gpuPod()),
    template: { metadata: { labels: { "job-name": "job-a", app: "train" } }, spec: gpuPod() },
  };
  const pod = (name: string, labels: Record<string, string>, consumes?: string) => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: "team-a",
      labels,
      ...(consumes && { annotations: { [CONSUME_ANNOTATION]: consumes } }),
    },
    spec: { containers: [] },
  });

  function booked(o: { nowMs: number; pods: readonly object[]; template?: object }) {
    const requests = new Store<ProvisioningRequest>();
    requests.set(request);
    const resizeRequests = new Store<ResizeRequest>(REQUEST_INDEXERS);
    resizeRequests.set(rr({ state: "SUCCEEDED", succeededTime: at(0) }));
    const groups = new Store<InstanceGroupManager>();
    groups.set(group());
    const client = new FakeKube();
    client.seed(POD_TEMPLATES, o.template ?? labelled);
    for (const p of o.pods) client.seed(PODS, p);
    const deps = {
      provisioningRequests: requests,
      resizeRequests,
      groups,
      client,
      now: () => o.nowMs,
      consumption: consumptionCache(),
      retentionMs: HOUR,
    };
    return {
      client,
      observe: () =>
        snapshotOf({ client, observe: () => observeProvisioning(deps, "team-a", "job-a-prov-1") }),
    };
  }

  test("within the booking window nothing is read; its end is computed once, for the decision", async () => {
    const w = booked({ nowMs: T0 + 300_000, pods: [] });
    const s = await w.observe();
    expect(s.bookingEndsAt).toBe(T0 + 600_000);
    expect(s.consumed).toBe(false);
    expect(w.client.calls).toEqual([]);
  });

  test("past the window: the template's pods are listed by its labels, once; a consuming pod is remembered", async () => {
    const w = booked({
      nowMs: T0 + 601_000,
      pods: [
        pod("job-a-0", { "job-name": "job-a", app: "train", extra: "x" }, "job-a-prov-1"),
        pod("other", { app: "other" }, "job-a-prov-1"),
      ],
    });
    expect((await w.observe()).consumed).toBe(true);
    expect(w.client.calls).toEqual([
      { verb: "get", resource: "podtemplates", namespace: "team-a", name: "ppt-job-a-prov-1-main" },
      { verb: "list", resource: "pods", namespace: "team-a" },
    ]);
    // Every later pass (a group's change maps to every request) reads nothing.
    expect((await w.observe()).consumed).toBe(true);
    expect(w.client.calls).toHaveLength(2);
  });

  test("a pod that carries the template's labels but names another request does not consume it", async () => {
    const w = booked({
      nowMs: T0 + 601_000,
      pods: [
        pod("job-a-0", { "job-name": "job-a", app: "train" }, "another-request"),
        // Consuming, but not one of the template's pods: not listed.
        pod("stray", { app: "train" }, "job-a-prov-1"),
      ],
    });
    expect((await w.observe()).consumed).toBe(false);
    expect(
      decideProvisioning(await w.observe()).status?.conditions.find((c) => c.type === "BookingExpired"),
    ).toMatchObject({ status: "True" });
  });

  test("a template without labels (written by hand): the namespace's pods are listed", async () => {
    const w = booked({
      nowMs: T0 + 601_000,
      template: template("ppt-job-a-prov-1-main", gpuPod()),
      pods: [pod("any", {}, "job-a-prov-1")],
    });
    expect((await w.observe()).consumed).toBe(true);
  });

  test("podSelector: every label of the template, none without it", () => {
    expect(podSelector(labelled)).toBe("job-name=job-a,app=train");
    expect(podSelector(undefined)).toBeUndefined();
  });
});

describe("a request naming a booking", () => {
  const booking: FutureReservation = {
    apiVersion: "compute.resize-operator.dev/v1",
    kind: "FutureReservation",
    metadata: { name: "night", namespace: "team-a", uid: "uid-night" },
    spec: {
      instanceGroupManager: "gpu",
      totalCount: 4,
      timeWindow: { startTime: at(60), duration: { seconds: "600" } },
      cancel: false,
    },
    status: { procurementStatus: "APPROVED" },
  };
  const delivery = { ...rr({ state: "ACCEPTED" }, { name: "fr-night" }) };

  function bookedWorld(request: ProvisioningRequest, bookings?: readonly FutureReservation[]) {
    const requests = new Store<ProvisioningRequest>();
    requests.set(request);
    const resizeRequests = new Store<ResizeRequest>(REQUEST_INDEXERS);
    resizeRequests.set(delivery);
    const groups = new Store<InstanceGroupManager>();
    groups.set(group());
    const store = new Store<FutureReservation>();
    for (const b of bookings ?? []) store.set(b);
    const client = new FakeKube();
    client.seed(POD_TEMPLATES, template("ppt-job-a-prov-1-main", gpuPod()));
    const deps = {
      provisioningRequests: requests,
      resizeRequests,
      groups,
      ...(bookings && { bookings: store }),
      client,
      now: () => T0,
      consumption: consumptionCache(),
      retentionMs: HOUR,
    };
    return {
      client,
      observe: () =>
        snapshotOf({ client, observe: () => observeProvisioning(deps, "team-a", "job-a-prov-1") }),
    };
  }

  test("new: the booking from its cache and the templates are read, no ResizeRequest of its own nor a queue", async () => {
    const w = bookedWorld(pr({ parameters: { futureReservation: "night" } }), [booking]);
    const s = await w.observe();
    expect(s.futureReservation?.metadata.name).toBe("night");
    expect(s.futureReservationsServed).toBe(true);
    expect(s.resizeRequest).toBeUndefined();
    expect(s.namesakes).toEqual([]);
    expect(s.queues).toBeUndefined();
    expect(w.client.calls).toEqual([
      { verb: "get", resource: "podtemplates", namespace: "team-a", name: "ppt-job-a-prov-1-main" },
    ]);
  });

  test("accepted: the delivery request recorded in its details is never taken for its own, and nothing is read live", async () => {
    const request = pr({
      parameters: { futureReservation: "night" },
      conditions: [cond("Accepted", "True", "SuccessfullyQueued")],
      details: {
        ResizeRequestName: "fr-night",
        InstanceGroupManager: "team-a/gpu",
        FutureReservation: "night",
      },
    });
    const w = bookedWorld(request, [booking]);
    const s = await w.observe();
    expect(s.resizeRequest).toBeUndefined();
    expect(s.bookingEndsAt).toBeUndefined();
    expect(w.client.calls).toEqual([]);
  });

  test("bookings not served: none found, and the decision says why", async () => {
    const s = await bookedWorld(pr({ parameters: { futureReservation: "night" } })).observe();
    expect(s.futureReservation).toBeUndefined();
    expect(s.futureReservationsServed).toBe(false);
    expect(decideProvisioning(s).status?.conditions.find((c) => c.type === "Failed")?.message).toContain(
      "does not serve FutureReservations",
    );
  });
});
