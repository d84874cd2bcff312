// The engine of the authorization matrix (test/security/authorization-matrix.test.ts): a row is one
// route or command with the RBAC permissions it needs and a probe that calls it as a subject; every row
// runs as every subject in the namespace where the roles are bound and in another one, and its answer
// must be "allowed" exactly when `kubectl auth can-i` says yes to every permission (in the other
// namespace: never). What differs is returned as one line per cell, so a run lists every failing row.
import { mapLimited } from "../../src/rest/batch.js";
import { CanI, describe, type Identity, type Permission } from "./can-i.js";
import type { PluginResult } from "./kubectl-plugin.js";
import type { RawReply } from "./rest.js";
import type { RoleSubject } from "./role-subjects.js";

/** What a call answered: allowed or denied, the answer itself (for the report), and other findings. */
export interface Outcome {
  readonly allowed: boolean;
  readonly answer: string;
  /** Further rules the answer broke (data it must not carry), one line each. */
  readonly findings?: readonly string[];
}

export interface Row {
  readonly id: string;
  /** The permissions the route needs in `namespace` (derived from its route table where it has one). */
  readonly needs: (namespace: string) => readonly Permission[];
  /** The identity the route authorizes the subject as: its ServiceAccount or its dashboard user. */
  readonly identity: (subject: RoleSubject) => Identity;
  readonly probe: (subject: RoleSubject, namespace: string) => Promise<Outcome>;
  /**
   * The same call on an object that does not exist, and what reading the object takes: a caller denied
   * and unable to read it must get the same answer for both (no existence leak).
   */
  readonly absent?: {
    readonly probe: (subject: RoleSubject, namespace: string) => Promise<Outcome>;
    readonly reads: (namespace: string) => readonly Permission[];
  };
}

export interface MatrixScope {
  readonly subjects: readonly RoleSubject[];
  /** Where the roles are bound. */
  readonly bound: string;
  /** Where nobody holds anything: every call there is denied. */
  readonly other: string;
  readonly oracle: CanI;
  /** Calls in flight at most (each may start a process). */
  readonly parallel: number;
}

/** Thrown by an interpreter for an answer that is neither allowed nor denied. */
class Unexpected extends Error {}

/** A REST answer: 2xx allowed, 403 denied (Google's `forbidden`). */
export function restOutcome(reply: RawReply): Outcome {
  const answer = String(reply.status);
  if (reply.status >= 200 && reply.status < 300) return { allowed: true, answer };
  if (reply.status === 403) return { allowed: false, answer };
  throw new Unexpected(`answered ${answer} ${JSON.stringify(reply.body)}`);
}

/** A dashboard answer: 200 allowed; 403, or 404 for what the caller may not know of, denied. */
export function dashboardOutcome(reply: RawReply): Outcome {
  const answer = String(reply.status);
  if (reply.status === 200) return { allowed: true, answer };
  if (reply.status === 403 || reply.status === 404) return { allowed: false, answer };
  throw new Unexpected(`answered ${answer} ${JSON.stringify(reply.body)}`);
}

/** `kubectl resize`: exit 0 allowed; exit 1 with the API server's Forbidden denied. */
export function pluginOutcome(result: PluginResult): Outcome {
  if (result.code === 0) return { allowed: true, answer: "exit 0" };
  if (result.code === 1 && /^Error from server \(Forbidden\)/m.test(result.stderr))
    return { allowed: false, answer: "Forbidden" };
  throw new Unexpected(`exit ${result.code}: ${result.stderr.trim()}`);
}

/** The namespaces a list answer shows, with a finding for each one outside the fixtures'. */
export function shownIn(
  namespaces: readonly string[],
  namespace: string,
  fixtures: readonly string[],
  answer: string,
): Outcome {
  const strangers = [...new Set(namespaces.filter((n) => !fixtures.includes(n)))];
  return {
    allowed: namespaces.includes(namespace),
    answer,
    findings: strangers.map((n) => `shows namespace ${n}, where the subject holds no role`),
  };
}

/** Every cell of `rows` as every subject in both namespaces; returns one line per broken rule. */
export async function runMatrix(rows: readonly Row[], scope: MatrixScope): Promise<string[]> {
  const { subjects, bound, other, oracle } = scope;
  const where = (ns: string) => (ns === bound ? "bound namespace" : "other namespace");
  const cells = rows.flatMap((row) =>
    subjects.flatMap((subject) => [bound, other].map((namespace) => ({ row, subject, namespace }))),
  );
  const problems: string[] = [];
  const allowedIn = new Map<string, Set<boolean>>();
  await mapLimited(cells, scope.parallel, async ({ row, subject, namespace }) => {
    const who = row.identity(subject);
    const needs = row.needs(namespace);
    const expected = await oracle.all(who, needs, namespace);
    const cell = `${row.id} as ${subject.role} in the ${where(namespace)}`;
    if (namespace === bound) allowedIn.set(row.id, (allowedIn.get(row.id) ?? new Set()).add(expected));
    else if (expected && needs.length > 0)
      problems.push(`${cell}: can-i says yes where no role is bound (fixtures are wrong)`);
    try {
      const outcome = await row.probe(subject, namespace);
      const can = `can-i ${needs.map(describe).join(" + ") || "(nothing)"}: ${expected ? "yes" : "no"}`;
      if (outcome.allowed !== expected)
        problems.push(`${cell}: ${outcome.allowed ? "allowed" : "denied"} (${outcome.answer}), ${can}`);
      for (const finding of outcome.findings ?? []) problems.push(`${cell}: ${finding}`);
      if (
        !outcome.allowed &&
        row.absent &&
        !(await oracle.all(who, row.absent.reads(namespace), namespace))
      ) {
        const missing = await row.absent.probe(subject, namespace);
        if (missing.answer !== outcome.answer)
          problems.push(
            `${cell}: answers ${outcome.answer} for an existing object and ${missing.answer} for a missing one, to a caller who may not read it`,
          );
      }
    } catch (err) {
      if (!(err instanceof Unexpected)) throw err;
      problems.push(`${cell}: ${err.message}`);
    }
  });
  // A row that nobody (or everybody) may use proves nothing about the permission it names.
  for (const row of rows) {
    const seen = allowedIn.get(row.id) ?? new Set();
    if (row.needs(bound).length > 0 && seen.size < 2)
      problems.push(
        `${row.id}: no subject is ${seen.has(true) ? "denied" : "allowed"} by can-i (a row that cannot fail)`,
      );
  }
  return problems.sort();
}

/** The ids a table must cover and the ids its rows have: one line per id missing or unknown. */
export function exhaustive(table: string, routes: readonly string[], rows: readonly string[]): string[] {
  return [
    ...routes.filter((r) => !rows.includes(r)).map((r) => `${table}: ${r} has no row in the matrix`),
    ...rows.filter((r) => !routes.includes(r)).map((r) => `${table}: row ${r} names no route`),
  ];
}
