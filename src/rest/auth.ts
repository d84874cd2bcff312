// Authentication and authorization of REST calls by the cluster itself: a bearer token is checked with
// a TokenReview for our audiences (results cached briefly, keyed by a hash of the token — the token
// itself is neither kept nor logged), and every call is authorized with a SubjectAccessReview for the
// reviewed identity against Kubernetes RBAC in the project's namespace. Tokens that carry OAuth scopes must also carry
// one of the method's scopes.
import { hash } from "node:crypto";
import { GROUP } from "../api/names.js";
import { SUBJECT_ACCESS_REVIEWS, TOKEN_REVIEWS } from "../runtime/builtin-kinds.js";
import type { Clock } from "../runtime/clock.js";
import type { KubeClient } from "../runtime/resource-client.js";
import { TtlCache } from "../runtime/ttl-cache.js";
import { BackendError, ForbiddenError, UnauthenticatedError } from "./errors.js";

export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
  /** OAuth scopes the token carries; undefined when it carries none (Kubernetes tokens). */
  readonly scopes?: readonly string[];
}

/** One RBAC check: verb on a resource in a namespace, optionally a named object. */
export interface AccessCheck {
  readonly verb: string;
  /** The resource's API group: ours unless given ("" is the core group, e.g. for events). */
  readonly group?: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name?: string;
}

/**
 * The audience REST tokens are made for by default (`kubectl create token NAME --audience=resize-operator`):
 * a token for it is no use against the API server, so a caller hands us no more than it must.
 */
export const DEFAULT_TOKEN_AUDIENCE = "resize-operator";

export interface AuthOptions {
  /** The audiences a token must be valid for, any one of them (--token-audiences). */
  readonly audiences?: readonly string[];
  /** How long a review's result is reused (--token-cache-ttl, default 10 s). */
  readonly cacheTtlMs?: number;
  /** Upper bound of cached results (default 1000). */
  readonly cacheSize?: number;
  readonly clock?: Clock;
  /**
   * Whether the API server says it is ready (its /readyz). Asked only after a denial: a starting
   * kube-apiserver answers reviews before its RBAC authorizer has the cluster's policy, and denies.
   */
  readonly apiServerReady?: () => Promise<boolean>;
}

const DEFAULT_CACHE_TTL_MS = 10_000;

/** The cache of one kind of review, as `options` say (one lookup in flight per key). */
function reviewCache<V>(options: AuthOptions, keep?: (value: V) => boolean): TtlCache<string, V> {
  return new TtlCache<string, V>({
    ttlMs: options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS,
    maxEntries: options.cacheSize ?? 1000,
    ...(options.clock && { clock: options.clock }),
    ...(keep && { keep }),
  });
}

/** Scopes from the user's extra (`scopes` or `scope`, possibly space-separated) or a JWT `scope` claim. */
function scopesOf(token: string, extra: Readonly<Record<string, readonly string[]>>): string[] | undefined {
  const fromExtra = [...(extra.scopes ?? []), ...(extra.scope ?? [])].flatMap((s) => s.split(/\s+/));
  if (fromExtra.some(Boolean)) return fromExtra.filter(Boolean);
  const payload = token.split(".")[1];
  if (token.split(".").length !== 3 || payload === undefined) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { scope?: unknown };
    if (typeof claims.scope === "string" && claims.scope.trim() !== "")
      return claims.scope.trim().split(/\s+/);
    if (Array.isArray(claims.scope)) return claims.scope.filter((s): s is string => typeof s === "string");
  } catch {
    // Not a JWT we can read: it carries no scopes we know of.
  }
  return undefined;
}

/**
 * Whether a TokenReview's answer vouches for the token for one of `audiences`. The API server lists
 * the requested audiences the token is valid for; a reviewer that leaves the list empty has ignored
 * the request's audiences (the token is then only known to be good for the API server itself), which
 * Kubernetes' TokenReview documentation says a client asking for audiences must refuse.
 */
export function reviewedForAudience(
  status: { readonly audiences?: readonly string[] | null | undefined },
  audiences: readonly string[],
): boolean {
  return (status.audiences ?? []).some((a) => audiences.includes(a));
}

export class Authenticator {
  /** Reviews by token hash; an invalid token's answer (undefined) is reused too. */
  private readonly reviews: TtlCache<string, UserInfo | undefined>;
  private readonly audiences: readonly string[];
  private readonly invalid: string;

  constructor(
    private readonly client: KubeClient,
    options: AuthOptions = {},
  ) {
    this.reviews = reviewCache(options);
    this.audiences = options.audiences ?? [DEFAULT_TOKEN_AUDIENCE];
    const [first = DEFAULT_TOKEN_AUDIENCE] = this.audiences;
    const which = this.audiences.length === 1 ? "the audience" : "one of the audiences";
    this.invalid = `Request had invalid authentication credentials. Expected a Kubernetes token for ${which} ${this.audiences.join(", ")} (kubectl create token NAME --audience=${first}).`;
  }

  /** The identity behind an `Authorization` header; UnauthenticatedError when there is none. */
  async authenticate(header: string | undefined): Promise<UserInfo> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
    const token = match?.[1];
    if (!token)
      throw new UnauthenticatedError(
        "Request is missing required authentication credential. Expected an OAuth 2 access token (Authorization: Bearer).",
      );
    // One-shot hashing: no Hash object per call.
    const user = await this.reviews.get(hash("sha256", token, "base64"), () => this.review(token));
    if (!user) throw new UnauthenticatedError(this.invalid);
    return user;
  }

  private async review(token: string): Promise<UserInfo | undefined> {
    const reply = await this.client.resource(TOKEN_REVIEWS).create(
      {
        apiVersion: TOKEN_REVIEWS.apiVersion,
        kind: TOKEN_REVIEWS.kind,
        spec: { token, audiences: [...this.audiences] },
      },
      { timeoutMs: 10_000 },
    );
    const status = reply.status;
    if (!status?.authenticated || !status.user?.username) return undefined;
    if (!reviewedForAudience(status, this.audiences)) return undefined;
    const extra = status.user.extra ?? {};
    const scopes = scopesOf(token, extra);
    return {
      username: status.user.username,
      ...(status.user.uid !== undefined && { uid: status.user.uid }),
      groups: status.user.groups ?? [],
      extra,
      ...(scopes && { scopes }),
    };
  }
}

export class Authorizer {
  /**
   * Allowed decisions are cached briefly (as the API server's webhook authorizer caches them), keyed by
   * the whole review: without it every REST call costs a SubjectAccessReview round trip. Denials are
   * not cached, so a permission granted takes effect at once; a revoked one within the TTL.
   */
  private readonly decisions: TtlCache<string, boolean>;
  /** How long an allowed decision is reused (--token-cache-ttl): no cache above it may keep one longer. */
  readonly cacheTtlMs: number;

  private readonly apiServerReady: (() => Promise<boolean>) | undefined;

  constructor(
    private readonly client: KubeClient,
    options: AuthOptions = {},
  ) {
    this.decisions = reviewCache(options, (allowed: boolean) => allowed);
    this.cacheTtlMs = options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
    this.apiServerReady = options.apiServerReady;
  }

  /**
   * The identity part of a cache key, serialised once per UserInfo: the Authenticator hands out the
   * same object for a token while its review is cached.
   */
  private readonly userKeys = new WeakMap<UserInfo, string>();

  /** ForbiddenError unless RBAC allows `check` for `user`. */
  async authorize(user: UserInfo, check: AccessCheck): Promise<void> {
    let userKey = this.userKeys.get(user);
    if (userKey === undefined) {
      userKey = JSON.stringify([user.username, user.uid, user.groups, user.extra]);
      this.userKeys.set(user, userKey);
    }
    // The key is made of exactly what the review asks, so a field added to the check can never be
    // left out of the key (two different checks sharing one cached answer).
    const attributes = resourceAttributes(check);
    const key = `${userKey}|${JSON.stringify(attributes)}`;
    const allowed = await this.decisions.get(key, () => this.review(user, attributes));
    if (!allowed) {
      // A denial from an API server that is not ready is no answer: 503, which clients retry, rather
      // than a 403 they take as final for a call that may be allowed a second later.
      if (this.apiServerReady && !(await this.apiServerReady().catch(() => false)))
        throw new BackendError(
          "The Kubernetes API server is not ready: the permission cannot be decided yet. Retry the call.",
        );
      const target = check.name === undefined ? check.resource : `${check.resource}/${check.name}`;
      throw new ForbiddenError(
        `Permission denied: ${user.username} may not ${check.verb} ${target} in project ${check.namespace}.`,
      );
    }
  }

  private async review(user: UserInfo, attributes: ResourceAttributes): Promise<boolean> {
    const reply = await this.client.resource(SUBJECT_ACCESS_REVIEWS).create(
      {
        apiVersion: SUBJECT_ACCESS_REVIEWS.apiVersion,
        kind: SUBJECT_ACCESS_REVIEWS.kind,
        spec: {
          resourceAttributes: attributes,
          user: user.username,
          groups: user.groups,
          ...(user.uid !== undefined && { uid: user.uid }),
          extra: user.extra,
        },
      },
      { timeoutMs: 10_000 },
    );
    return reply.status?.allowed === true;
  }
}

/** What a SubjectAccessReview asks about one check. */
interface ResourceAttributes {
  readonly group: string;
  readonly resource: string;
  readonly verb: string;
  readonly namespace: string;
  readonly name?: string;
}

function resourceAttributes(check: AccessCheck): ResourceAttributes {
  return {
    group: check.group ?? GROUP,
    resource: check.resource,
    verb: check.verb,
    namespace: check.namespace,
    ...(check.name !== undefined && { name: check.name }),
  };
}

/** A token with OAuth scopes must carry one of `required`; tokens without scopes pass (RBAC decides). */
export function checkScopes(user: UserInfo, required: readonly string[]): void {
  if (user.scopes === undefined) return;
  if (!user.scopes.some((s) => required.includes(s)))
    throw new ForbiddenError("Request had insufficient authentication scopes.", "insufficientPermissions");
}
