// The authorization matrix's rows for widening a group (api/group-widening.ts): one row per widening
// field, each a `kubectl patch` of a group made for these rows, with the subject's own kubeconfig. A
// change of the field needs `patch` on the group and `update` on its target's /scale (the admission
// policy); a node selector also needs `list nodes` cluster-wide. Each probe changes the field to a
// value it does not have (read first: the rows run one at a time), so the policy always has a change to
// judge. A widening field without a row fails the matrix (exhaustive).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { WIDENING_FIELDS, type WideningField } from "../../src/api/group-widening.js";
import { GROUP, INSTANCE_GROUP_MANAGER } from "../../src/api/names.js";
import type { Outcome, Row } from "./authorization-matrix.js";
import type { Permission } from "./can-i.js";
import type { RoleSubject } from "./role-subjects.js";
import { createGroup, createWorkers, getGroup } from "./resize.js";

const run = promisify(execFile);

/** The group (and its StatefulSet) the rows change, in each namespace. */
export const WIDENED_GROUP = "widen";

type Spec = Awaited<ReturnType<typeof getGroup>>["spec"];
let serial = 0;

/** Each field's patch, from the group's current spec: always a change. */
const PATCHES: Readonly<Record<WideningField, (spec: Spec) => object>> = {
  targetRef: (spec) => ({
    targetRef: { name: spec.targetRef.name === WIDENED_GROUP ? `${WIDENED_GROUP}-b` : WIDENED_GROUP },
  }),
  maxSize: (spec) => ({ maxSize: (spec.maxSize ?? 100) + 1 }),
  minSize: (spec) => ({ minSize: spec.minSize === 0 ? 1 : 0 }),
  provisioningRequests: (spec) => ({
    provisioningRequests: { namespaces: spec.provisioningRequests?.namespaces === "All" ? "Same" : "All" },
  }),
  readiness: () => ({
    readyReplicasField: null,
    readiness: { nodeSelector: { "matrix.test/n": String(++serial) } },
  }),
  readyReplicasField: (spec) => ({
    readiness: null,
    readyReplicasField:
      spec.readyReplicasField === "status.replicas" ? "status.readyReplicas" : "status.replicas",
  }),
  instanceShape: () => ({ instanceShape: { allocatable: { cpu: String(++serial) } } }),
};

/** Creates the group over two StatefulSets (targetRef moves between them) in `namespace`. */
export async function createWidenedGroup(namespace: string): Promise<void> {
  await createWorkers(namespace, WIDENED_GROUP, 0, 0);
  await createWorkers(namespace, `${WIDENED_GROUP}-b`, 0, 0);
  await createGroup(namespace, WIDENED_GROUP, { maxSize: 100 });
}

const scaleOf = (name: string): Permission => ({
  verb: "update",
  resource: "statefulsets/scale",
  group: "apps",
  name,
});

async function patchAs(s: RoleSubject, namespace: string, patch: object): Promise<Outcome> {
  const kubectl = process.env.KUBECTL;
  if (!kubectl) throw new Error("KUBECTL is set by the jest global setup");
  const args = ["--kubeconfig", s.kubeconfig, "patch", "igm", WIDENED_GROUP, "-n", namespace, "--type=merge"];
  try {
    await run(kubectl, [...args, "-p", JSON.stringify({ spec: patch })]);
    return { allowed: true, answer: "patched" };
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? "";
    if (/^Error from server \(Forbidden\)/m.test(stderr)) return { allowed: false, answer: "Forbidden" };
    throw new Error(`kubectl patch ${JSON.stringify(patch)} as ${s.role}: ${stderr}`, { cause: err });
  }
}

/** The rows, one per widening field; the probe reads the group's spec as the test's admin first. */
export function wideningRows(identity: Row["identity"]): Row[] {
  return (Object.keys(WIDENING_FIELDS) as WideningField[]).map((field) => ({
    id: field,
    identity,
    needs: () => [
      { verb: "patch", resource: INSTANCE_GROUP_MANAGER.plural, group: GROUP, name: WIDENED_GROUP },
      // The policy checks the target the group has after the change, one of the two StatefulSets.
      scaleOf(WIDENED_GROUP),
      scaleOf(`${WIDENED_GROUP}-b`),
      ...(field === "readiness" ? [{ verb: "list", resource: "nodes", group: "" }] : []),
    ],
    probe: async (s, namespace) => {
      const spec = (await getGroup(namespace, WIDENED_GROUP)).spec;
      return patchAs(s, namespace, PATCHES[field](spec));
    },
  }));
}
