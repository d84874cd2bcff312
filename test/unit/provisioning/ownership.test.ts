// Which objects the provisioner trusts as part of a ProvisioningRequest: its ResizeRequest by the uid
// label and the owner references it was made with, a PodTemplate only when nothing else owns it, and
// the place of the ResizeRequest recorded at acceptance.
import type { ResizeRequest } from "../../../src/api/resize-request.js";
import {
  acceptedMessage,
  foreignTemplate,
  notMadeFor,
  ownersOf,
  recordedNamespace,
} from "../../../src/controllers/provisioning/ownership.js";
import { UID, cond, gpuPod, group, pr, rr, template } from "./fixtures.js";

const prOwner = { apiVersion: "autoscaling.x-k8s.io/v1", kind: "ProvisioningRequest", name: "job-a-prov-1" };
const groupOwner = {
  apiVersion: "compute.resize-operator.dev/v1",
  kind: "InstanceGroupManager",
  name: "gpu",
};
const withMeta = (base: ResizeRequest, meta: Record<string, unknown>): ResizeRequest => ({
  ...base,
  metadata: { ...base.metadata, ...meta },
});
const inInfra = (owners: object[]): ResizeRequest =>
  withMeta(rr({ state: "ACCEPTED" }), { namespace: "infra", ownerReferences: owners });

test.each<[string, ResizeRequest, ReturnType<typeof group> | undefined, RegExp | undefined]>([
  ["made for it, beside the group in its own namespace", rr({ state: "ACCEPTED" }), group(), undefined],
  [
    "made for it in another namespace: owned by the group only",
    inInfra([{ ...groupOwner, uid: "uid-infra-gpu" }]),
    group("gpu", "infra"),
    undefined,
  ],
  [
    "its group gone from the cache: the group's reference is matched by kind and name",
    rr({ state: "ACCEPTED" }),
    undefined,
    undefined,
  ],
  [
    "another request's uid label",
    withMeta(rr({ state: "ACCEPTED" }), {
      labels: { "compute.resize-operator.dev/provisioning-request-uid": "x" },
    }),
    group(),
    /was not made for this ProvisioningRequest/,
  ],
  [
    "the right label, no owners (made by hand)",
    withMeta(rr({ state: "ACCEPTED" }), { ownerReferences: undefined }),
    group(),
    /must be owned by ProvisioningRequest job-a-prov-1 .*InstanceGroupManager gpu \(uid uid-team-a-gpu\), and its owners are none/,
  ],
  [
    "owned by the request but not by its group",
    withMeta(rr({ state: "ACCEPTED" }), { ownerReferences: [{ ...prOwner, uid: UID }] }),
    group(),
    /its owners are ProvisioningRequest job-a-prov-1 \(uid [^)]+\)\./,
  ],
  [
    "owned by a former group of the same name (another uid)",
    withMeta(rr({ state: "ACCEPTED" }), {
      ownerReferences: [
        { ...prOwner, uid: UID },
        { ...groupOwner, uid: "uid-old" },
      ],
    }),
    group(),
    /is not the one the provisioner created/,
  ],
  [
    "in the request's namespace, owned by the group but not by the request",
    withMeta(rr({ state: "ACCEPTED" }), { ownerReferences: [{ ...groupOwner, uid: "uid-team-a-gpu" }] }),
    group(),
    /must be owned by ProvisioningRequest job-a-prov-1/,
  ],
  [
    "in another namespace, owned by some other group there",
    inInfra([{ ...groupOwner, name: "other", uid: "uid-infra-other" }]),
    group("gpu", "infra"),
    /ResizeRequest infra\/pr-job-a-prov-1-0f1e2d3c4b is not the one/,
  ],
])("notMadeFor: %s", (_, resizeRequest, g, expected) => {
  const got = notMadeFor(resizeRequest, pr(), g);
  if (expected === undefined) expect(got).toBeUndefined();
  else expect(got).toMatch(expected);
});

type Owner = { apiVersion: string; kind: string; name: string; uid: string };
test.each<[string, Owner[] | undefined, RegExp | undefined]>([
  ["owned by nothing (made by hand)", undefined, undefined],
  ["owned by the request (as Kueue hands it over)", [{ ...prOwner, uid: UID }], undefined],
  [
    "owned by the request's controller, its Workload (as Kueue creates it)",
    [{ apiVersion: "kueue.x-k8s.io/v1beta2", kind: "Workload", name: "job-a", uid: "w1" }],
    undefined,
  ],
  [
    "owned by the request and by something else",
    [
      { ...prOwner, uid: UID },
      { apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: "d1" },
    ],
    /owned by ProvisioningRequest job-a-prov-1 .*, Deployment web \(uid d1\), not by this ProvisioningRequest or its controller/,
  ],
  [
    "owned by another Workload",
    [{ apiVersion: "kueue.x-k8s.io/v1beta2", kind: "Workload", name: "job-b", uid: "w2" }],
    /owned by Workload job-b \(uid w2\)/,
  ],
  [
    "owned by another ProvisioningRequest",
    [{ ...prOwner, name: "other", uid: "other-uid" }],
    /PodTemplate team-a\/t of a pod set is owned by ProvisioningRequest other \(uid other-uid\), not by this ProvisioningRequest or its controller/,
  ],
  [
    "owned by a workload",
    [{ apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: "d1" }],
    /owned by Deployment web \(uid d1\)/,
  ],
])("foreignTemplate: %s", (_, owners, expected) => {
  const t = template("t", gpuPod());
  const got = foreignTemplate({ ...t, metadata: { ...t.metadata, ownerReferences: owners } }, pr());
  if (expected === undefined) expect(got).toBeUndefined();
  else expect(got).toMatch(expected);
});

const acceptedBy = (status: "True" | "False", message: string) => [
  { ...cond("Accepted", status, "SuccessfullyQueued"), message },
];
const OLD_MESSAGE =
  "ResizeRequest infra/pr-job-a-prov-1-0f1e2d3c4b asks InstanceGroupManager infra/gpu for 4 instances (4 pods).";
test.each<[string, Parameters<typeof pr>[0], string | undefined]>([
  [
    "recorded at acceptance",
    { details: { ResizeRequestName: "rr", InstanceGroupManager: "infra/gpu" } },
    "infra",
  ],
  [
    "accepted by an earlier release: its Accepted message",
    { conditions: acceptedBy("True", OLD_MESSAGE) },
    "infra",
  ],
  ["not accepted", { conditions: acceptedBy("False", OLD_MESSAGE) }, undefined],
  ["never accepted", {}, undefined],
  ["a group without its namespace", { details: { InstanceGroupManager: "gpu" } }, undefined],
])("recordedNamespace: %s", (_, o, expected) => {
  expect(recordedNamespace(pr(o))).toBe(expected);
});

test("the Accepted message names the place that recordedNamespace reads back", () => {
  const made = { ...rr(undefined), metadata: { ...rr(undefined).metadata, namespace: "infra" } };
  const message = acceptedMessage(made, 4, 4);
  expect(message).toBe(OLD_MESSAGE);
});

test("ownersOf skips malformed entries", () => {
  expect(ownersOf({ ownerReferences: "nope" })).toEqual([]);
  expect(ownersOf({ ownerReferences: [null, { kind: "X" }, { ...groupOwner, uid: "u" }] })).toEqual([
    { ...groupOwner, uid: "u" },
  ]);
});
