// Authorization of the dashboard by Kubernetes RBAC: every read and action is a SubjectAccessReview
// (the REST API's Authorizer) for the signed-in identity — username = prefix + email, groups from the
// session with their own prefix. Answers, denials included, are cached briefly per identity and check
// (on top of the Authorizer's own cache of allowed decisions, --token-cache-ttl), since the live stream
// filters every watch event by them for every open connection.
import type { AccessCheck, Authorizer, UserInfo } from "../rest/auth.js";
import { ForbiddenError } from "../rest/errors.js";
import type { Clock } from "../runtime/clock.js";
import { TtlCache } from "../runtime/ttl-cache.js";
import type { DashboardSession } from "./session.js";
import { getCheck, listCheck, notFound, type Named, type Shown } from "./visibility.js";

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

export interface DashboardAuthzOptions {
  /** How long an answer is reused (default 5 s, never longer than the Authorizer's --token-cache-ttl). */
  readonly ttlMs?: number;
  /** Upper bound of cached answers (default 10,000). */
  readonly maxEntries?: number;
  readonly clock?: Clock;
}

export class DashboardAuthz {
  private readonly answers: TtlCache<string, boolean>;
  /**
   * How long an answer is reused: a permission removed shows within it. The live stream checks its
   * sessions as often, so a revoked session ends within it too.
   */
  readonly ttlMs: number;

  /** `authorizer` is the operator's, the one REST uses (built with --token-cache-ttl). */
  constructor(
    private readonly authorizer: Authorizer,
    options: DashboardAuthzOptions = {},
  ) {
    // Capped by the Authorizer's TTL: with --token-cache-ttl under 5 s, a revoked permission must not
    // stay allowed on the dashboard for longer than the flag says.
    this.ttlMs = Math.min(options.ttlMs ?? 5_000, authorizer.cacheTtlMs);
    this.answers = new TtlCache({
      ttlMs: this.ttlMs,
      maxEntries: options.maxEntries ?? 10_000,
      ...(options.clock && { clock: options.clock }),
    });
  }

  /** Whether RBAC allows `check` for `user` (cached for a few seconds). */
  can(user: UserInfo, check: AccessCheck): Promise<boolean> {
    const key = JSON.stringify([
      user.username,
      user.groups,
      check.verb,
      check.group ?? null,
      check.resource,
      check.namespace,
      check.name ?? "",
    ]);
    // A denial is an answer; any other failure (API server unreachable) rejects and is not cached.
    return this.answers.get(key, () =>
      this.authorizer.authorize(user, check).then(
        () => true,
        (err: unknown) => {
          if (err instanceof ForbiddenError) return false;
          throw err;
        },
      ),
    );
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

  /** Whether `user` may see objects of kind `shown` in `namespace` (visibility.ts). */
  sees(user: UserInfo, shown: Shown, namespace: string): Promise<boolean> {
    return this.can(user, listCheck(shown, namespace));
  }

  /** The namespaces of `candidates` where `user` may see objects of kind `shown` (visibility.ts). */
  async visible(user: UserInfo, candidates: Iterable<string>, shown: Shown): Promise<Set<string>> {
    const namespaces = [...new Set(candidates)];
    const answers = await Promise.all(namespaces.map((namespace) => this.sees(user, shown, namespace)));
    return new Set(namespaces.filter((_, i) => answers[i]));
  }

  /**
   * The object named, when it exists and `user` may get it; otherwise the same NotFoundError for both,
   * so that no answer tells whether something exists where the caller may not look. Permission first:
   * the cache is not even read for a caller who may not see the object.
   */
  async find<T>(
    user: UserInfo,
    shown: Named,
    namespace: string,
    name: string,
    lookup: () => T | undefined,
  ): Promise<T> {
    const found = (await this.can(user, getCheck(shown, namespace, name))) ? lookup() : undefined;
    if (found === undefined) throw notFound(shown, namespace, name);
    return found;
  }
}
