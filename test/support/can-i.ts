// The oracle of the authorization tests: `kubectl auth can-i`, the real kubectl asking the real API
// server (its RBAC) about a user the test's admin identity impersonates. Each question is asked once.
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A Kubernetes identity as the API server sees it: a user name and the groups it is given. */
export interface Identity {
  readonly user: string;
  /** Impersonated with --as-group; empty: the API server's own (ServiceAccounts get theirs). */
  readonly groups: readonly string[];
}

/** One RBAC permission: a verb on a resource of an API group ("" for the core group), maybe one object. */
export interface Permission {
  readonly verb: string;
  readonly resource: string;
  readonly group: string;
  readonly name?: string;
}

/** How a permission reads in a report: `get resizerequests/shared`. */
export function describe(p: Permission): string {
  return `${p.verb} ${p.resource}${p.name === undefined ? "" : `/${p.name}`}`;
}

/** `kubectl auth can-i` for identities, memoized per (identity, permission, namespace). */
export class CanI {
  private readonly answers = new Map<string, Promise<boolean>>();

  /** Whether `who` may do `p` in `namespace`, as `kubectl auth can-i ... --as` answers. */
  ask(who: Identity, p: Permission, namespace: string): Promise<boolean> {
    const key = JSON.stringify([who.user, who.groups, p.verb, p.group, p.resource, p.name, namespace]);
    let answer = this.answers.get(key);
    if (answer === undefined) {
      answer = canI(who, p, namespace);
      this.answers.set(key, answer);
    }
    return answer;
  }

  /** Whether `who` holds every one of `needs` in `namespace` (none needed: yes). */
  async all(who: Identity, needs: readonly Permission[], namespace: string): Promise<boolean> {
    const answers = await Promise.all(needs.map((p) => this.ask(who, p, namespace)));
    return answers.every(Boolean);
  }
}

async function canI(who: Identity, p: Permission, namespace: string): Promise<boolean> {
  const kubectl = process.env.KUBECTL;
  const kubeconfig = process.env.KUBECONFIG;
  if (!kubectl || !kubeconfig) throw new Error("KUBECTL and KUBECONFIG are set by the jest global setup");
  const resource = `${p.resource}${p.group === "" ? "" : `.${p.group}`}${p.name === undefined ? "" : `/${p.name}`}`;
  const args = [
    ...["--kubeconfig", kubeconfig, "auth", "can-i", p.verb, resource, "-n", namespace],
    ...["--as", who.user, ...who.groups.flatMap((g) => ["--as-group", g])],
  ];
  // Exit code 0 with "yes", 1 with "no"; anything else is a failure of the question, not an answer.
  const answer = await run(kubectl, args).then(
    ({ stdout }) => stdout.trim(),
    (err: unknown) => {
      const { code, stdout = "", stderr = "" } = err as { code?: unknown; stdout?: string; stderr?: string };
      if (code === 1 && stdout.trim() === "no") return "no";
      throw new Error(`kubectl auth can-i ${args.slice(4).join(" ")} failed: ${stderr}`, { cause: err });
    },
  );
  if (answer !== "yes" && answer !== "no") throw new Error(`kubectl auth can-i answered ${answer}`);
  return answer === "yes";
}
