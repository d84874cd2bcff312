// Summaries, the timeline, capacity history and the adapter's pure parts.
import { CapacityHistory } from "../../../src/dashboard/capacity-history.js";
import { groupSummary, requestSummary, timeline } from "../../../src/dashboard/views.js";
import { decodeSession, decodeUser, keys, ttlMs } from "../../../src/dashboard/redis-adapter.js";
import { identityOf } from "../../../src/dashboard/authz.js";
import { frame } from "../../../src/dashboard/sse.js";
import type { ResizeRequest } from "../../../src/api/resize-request.js";
import type { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";

const rr = {
  apiVersion: "compute.resize-operator.dev/v1",
  kind: "ResizeRequest",
  metadata: { name: "a", namespace: "ns", uid: "u", creationTimestamp: "2030-01-01T00:00:00Z" },
  spec: { instanceGroupManager: "g", resizeBy: 2, cancel: false },
  status: {
    state: "SUCCEEDED",
    reason: "Provisioned",
    succeededTime: "2030-01-01T00:02:00Z",
    runUntil: "2030-01-01T01:02:00Z",
    conditions: [
      {
        type: "Succeeded",
        status: "True",
        reason: "Provisioned",
        message: "",
        lastTransitionTime: "2030-01-01T00:02:00Z",
      },
      {
        type: "Accepted",
        status: "True",
        reason: "Admitted",
        message: "ok",
        lastTransitionTime: "2030-01-01T00:00:01Z",
      },
    ],
  },
} as unknown as ResizeRequest;

test("request summary and timeline in time order", () => {
  expect(requestSummary(rr)).toMatchObject({
    namespace: "ns",
    name: "a",
    group: "g",
    size: 2,
    state: "SUCCEEDED",
    queued: false,
  });
  expect(timeline(rr).map((t) => t.title)).toEqual([
    "Created",
    "Accepted=True",
    "Succeeded=True",
    "Succeeded",
    "Runs until",
  ]);
});

test("group summary and capacity history (a point per change, bounded)", () => {
  const g = {
    metadata: { name: "g", namespace: "ns" },
    spec: {
      zone: "z",
      targetRef: { apiVersion: "apps/v1", kind: "StatefulSet", name: "w" },
      maxSize: 5,
      minSize: 0,
    },
    status: { targetSize: 1, readyInstances: 1, queuedRequests: 0 },
  } as unknown as InstanceGroupManager;
  const s = groupSummary(g);
  expect(s).toMatchObject({ target: "StatefulSet/w", targetSize: 1, ready: 1, max: 5, queued: 0 });
  const h = new CapacityHistory(3);
  h.record(s, 1);
  h.record(s, 2);
  expect(h.points("ns", "g")).toHaveLength(1);
  for (let i = 2; i < 7; i++) h.record({ ...s, targetSize: i }, i);
  expect(h.points("ns", "g").map((p) => p.targetSize)).toEqual([4, 5, 6]);
  h.forget("ns", "g");
  expect(h.points("ns", "g")).toEqual([]);
});

test("adapter: keys, TTL, date revival, expired sessions", () => {
  expect(keys("p:").session("t")).toBe("p:session:t");
  expect(keys("p:").userByEmail("A@B.c")).toBe("p:user-email:a@b.c");
  expect(ttlMs(new Date(5000), 1000)).toBe(4000);
  expect(ttlMs(new Date(0), 1000)).toBe(1);
  expect(
    decodeUser(JSON.stringify({ id: "1", email: "e", emailVerified: "2030-01-01T00:00:00Z" }))?.emailVerified,
  ).toEqual(new Date("2030-01-01T00:00:00Z"));
  const text = JSON.stringify({ sessionToken: "t", userId: "u", expires: new Date(10_000) });
  expect(decodeSession(text, 5_000)?.expires).toEqual(new Date(10_000));
  expect(decodeSession(text, 10_000)).toBeNull();
  expect(decodeSession(null, 0)).toBeNull();
});

test("identity: prefixes, no system groups, no email → none", () => {
  const session = {
    expires: "",
    user: { name: null, email: "a@b.c", image: null, groups: ["ops", "system:masters"] },
  };
  expect(identityOf(session, { usernamePrefix: "oidc:", groupsPrefix: "" })).toEqual({
    username: "oidc:a@b.c",
    groups: ["ops"],
    extra: {},
  });
  expect(identityOf(session, { usernamePrefix: "d:", groupsPrefix: "d:" })?.groups).toEqual([
    "d:ops",
    "d:system:masters",
  ]);
  expect(
    identityOf(
      { ...session, user: { ...session.user, email: null } },
      { usernamePrefix: "", groupsPrefix: "" },
    ),
  ).toBeUndefined();
});

test("SSE framing is one data line", () => {
  expect(frame({ type: "request", op: "upsert", namespace: "ns", data: { note: "a\nb" } })).toBe(
    'event: request\ndata: {"op":"upsert","data":{"note":"a\\nb"}}\n\n',
  );
});

test("a request is shown as queued exactly while its Queued condition is True", () => {
  const withQueued = (status: "True" | "False") =>
    ({
      ...rr,
      status: {
        state: "ACCEPTED",
        conditions: [
          {
            type: "Queued",
            status,
            reason: "Queued",
            message: "",
            lastTransitionTime: "2030-01-01T00:00:01Z",
          },
        ],
      },
    }) as unknown as ResizeRequest;
  expect(requestSummary(withQueued("True")).queued).toBe(true);
  expect(requestSummary(withQueued("False")).queued).toBe(false);
});

test("the request summary names the zone or region the controller recorded", () => {
  const at = (status: Record<string, string>) =>
    requestSummary({ ...rr, status: { ...rr.status, ...status } }).location;
  expect(at({ zone: "http://x/compute/v1/projects/ns/zones/local-a" })).toBe("zone local-a");
  expect(at({ region: "http://x/compute/v1/projects/ns/regions/local" })).toBe("region local");
  expect(requestSummary(rr).location).toBeNull();
});
