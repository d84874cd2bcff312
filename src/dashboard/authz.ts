// Authorization of the dashboard by Kubernetes RBAC: every read and action is a SubjectAccessReview
// (the REST API's Authorizer) for the signed-in identity — username = prefix + email, groups from the
// session with their own prefix. Answers are cached briefly per identity and check, since the live
// stream filters every watch event by them.
import type { AccessCheck, Authorizer, UserInfo } from "../rest/auth.js";
import { ForbiddenError } from "../rest/errors.js";
import type { DashboardSession } from "./session.js";

export interface IdentityOptions {
  readonly usernamePrefix: string;
  readonly groupsPrefix: string;
}

/** The Kubernetes identity of a session; undefined when it has no email to build a username from. */
export function identityOf(session: DashboardSession, options: IdentityOptions): UserInfo | undefined {
  const email = session.user.email;
  if (!email) return undefined;
  const groups = session.user.groups
    .map((g) => `${options.groupsPrefix}${g}`)
    // Without a prefix an identity provider could hand out system:masters; never pass system groups.
    .filter((g) => !g.startsWith("system:"));
  return { username: `${options.usernamePrefix}${email}`, groups, extra: {} };
}

export class DashboardAuthz {
  private readonly cache = new Map<string, { allowed: Promise<boolean>; expires: number }>();

  constructor(
    private readonly authorizer: Authorizer,
    private readonly options: { ttlMs?: number; now?: () => number; maxEntries?: number } = {},
  ) {}

  /** Whether RBAC allows `check` for `user` (cached for a few seconds). */
  can(user: UserInfo, check: AccessCheck): Promise<boolean> {
    const now = (this.options.now ?? Date.now)();
    const key = JSON.stringify([
      user.username,
      user.groups,
      check.verb,
      check.resource,
      check.namespace,
      check.name ?? "",
    ]);
    const hit = this.cache.get(key);
    if (hit && hit.expires > now) return hit.allowed;
    if (this.cache.size >= (this.options.maxEntries ?? 10_000)) {
      for (const [k, v] of this.cache) if (v.expires <= now) this.cache.delete(k);
      if (this.cache.size >= (this.options.maxEntries ?? 10_000)) this.cache.clear();
    }
    const allowed = this.authorizer.authorize(user, check).then(
      () => true,
      (err: unknown) => {
        if (err instanceof ForbiddenError) return false;
        // Not an answer (API server unreachable): do not remember it.
        this.cache.delete(key);
        throw err;
      },
    );
    this.cache.set(key, { allowed, expires: now + (this.options.ttlMs ?? 5_000) });
    return allowed;
  }

  /** ForbiddenError unless allowed. */
  async require(user: UserInfo, check: AccessCheck): Promise<void> {
    if (!(await this.can(user, check))) {
      const target = check.name === undefined ? check.resource : `${check.resource}/${check.name}`;
      throw new ForbiddenError(
        `Permission denied: ${user.username} may not ${check.verb} ${target} in ${check.namespace}.`,
      );
    }
  }

  /** The namespaces of `candidates` where `user` may list `resource`. */
  async visible(user: UserInfo, candidates: Iterable<string>, resource: string): Promise<Set<string>> {
    const namespaces = [...new Set(candidates)];
    const answers = await Promise.all(
      namespaces.map((namespace) => this.can(user, { verb: "list", resource, namespace })),
    );
    return new Set(namespaces.filter((_, i) => answers[i]));
  }
}
