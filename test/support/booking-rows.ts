// The authorization matrix's row for booking a group with kubectl: `kubectl create` of a
// FutureReservation with the subject's own kubeconfig needs `create` on futurereservations and verb
// `use` on the group it names (the admission policy, docs/booking.md "Who may book"). Each probe books
// under a new name, so an earlier cell's booking never answers for a later one.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { stringify } from "yaml";
import { FUTURE_RESERVATION, GROUP, INSTANCE_GROUP_MANAGER, USE_VERB, VERSION } from "../../src/api/names.js";
import { rfc3339 } from "../../src/api/time.js";
import type { Outcome, Row } from "./authorization-matrix.js";
import { GROUP_OF } from "./matrix-fixtures.js";
import type { RoleSubject } from "./role-subjects.js";

const run = promisify(execFile);
let serial = 0;

/** The row's id, as the matrix's exhaustive check lists it. */
export const BOOKING_ROW = "kubectl create futurereservation";

async function bookAs(s: RoleSubject, namespace: string): Promise<Outcome> {
  const kubectl = process.env.KUBECTL;
  if (!kubectl) throw new Error("KUBECTL is set by the jest global setup");
  const manifest = stringify({
    apiVersion: `${GROUP}/${VERSION}`,
    kind: FUTURE_RESERVATION.kind,
    metadata: { name: `matrix-${s.role}-${++serial}`, namespace },
    spec: {
      instanceGroupManager: GROUP_OF.zones,
      totalCount: 1,
      // Far ahead: the booking is decided, never delivered, while the matrix runs.
      timeWindow: { startTime: rfc3339(Date.now() + 24 * 3_600_000), duration: { seconds: "60" } },
    },
  });
  const child = run(kubectl, ["--kubeconfig", s.kubeconfig, "create", "-f", "-"]);
  child.child.stdin?.end(manifest);
  try {
    await child;
    return { allowed: true, answer: "created" };
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? "";
    if (/^Error from server \(Forbidden\)/m.test(stderr)) return { allowed: false, answer: "Forbidden" };
    throw new Error(`kubectl create futurereservation as ${s.role}: ${stderr}`, { cause: err });
  }
}

export function bookingRows(identity: Row["identity"]): Row[] {
  return [
    {
      id: BOOKING_ROW,
      identity,
      needs: () => [
        { verb: "create", resource: FUTURE_RESERVATION.plural, group: GROUP },
        { verb: USE_VERB, resource: INSTANCE_GROUP_MANAGER.plural, group: GROUP, name: GROUP_OF.zones },
      ],
      probe: bookAs,
    },
  ];
}
