// Auth.js database adapter on Redis (ioredis): users, accounts, sessions and verification tokens. A
// session key expires with the session itself (TTL = its `expires`, i.e. maxAge after the last
// refresh), sign-out deletes it, and every user keeps a set of their session tokens so that an admin
// can revoke all of them at once (`revokeUserSessions`).
import { randomUUID } from "node:crypto";
import type {
  Adapter,
  AdapterAccount,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "@auth/core/adapters";
import type { Redis } from "ioredis";

const DEFAULT_PREFIX = "authjs:";

/** Key names, one place (tests and the docs refer to them). */
export function keys(prefix: string) {
  return {
    user: (id: string) => `${prefix}user:${id}`,
    userByEmail: (email: string) => `${prefix}user-email:${email.toLowerCase()}`,
    account: (provider: string, providerAccountId: string) =>
      `${prefix}account:${provider}:${providerAccountId}`,
    userAccounts: (id: string) => `${prefix}user-accounts:${id}`,
    session: (token: string) => `${prefix}session:${token}`,
    userSessions: (id: string) => `${prefix}user-sessions:${id}`,
    verification: (identifier: string, token: string) => `${prefix}verification:${identifier}:${token}`,
  };
}

/** Milliseconds until `expires`, at least 1 (Redis refuses a zero or negative PX). */
export function ttlMs(expires: Date, now: number): number {
  return Math.max(1, expires.getTime() - now);
}

/** JSON text of a stored record; Dates become ISO strings. */
export function encode(value: object): string {
  return JSON.stringify(value);
}

function date(value: unknown): Date | null {
  if (typeof value !== "string" && typeof value !== "number") return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

export function decodeUser(text: string | null): AdapterUser | null {
  if (text === null) return null;
  const raw = JSON.parse(text) as AdapterUser & { emailVerified?: unknown };
  return { ...raw, emailVerified: date(raw.emailVerified) };
}

export function decodeSession(text: string | null, now: number): AdapterSession | null {
  if (text === null) return null;
  const raw = JSON.parse(text) as { sessionToken: string; userId: string; expires: unknown };
  const expires = date(raw.expires);
  // A key whose TTL has not fired yet must not outlive its session by a moment either.
  if (!expires || expires.getTime() <= now) return null;
  return { sessionToken: raw.sessionToken, userId: raw.userId, expires };
}

function decodeVerification(text: string | null): VerificationToken | null {
  if (text === null) return null;
  const raw = JSON.parse(text) as { identifier: string; token: string; expires: unknown };
  const expires = date(raw.expires);
  return expires ? { identifier: raw.identifier, token: raw.token, expires } : null;
}

export interface RedisAdapter extends Adapter {
  /** Deletes every session of the user (an admin's "sign out everywhere"); returns how many. */
  revokeUserSessions(userId: string): Promise<number>;
}

export function redisAdapter(
  redis: Redis,
  options: { prefix?: string; now?: () => number } = {},
): RedisAdapter {
  const k = keys(options.prefix ?? DEFAULT_PREFIX);
  const now = options.now ?? Date.now;

  const getUser = async (id: string): Promise<AdapterUser | null> => decodeUser(await redis.get(k.user(id)));

  const saveUser = async (user: AdapterUser, previousEmail?: string | null): Promise<void> => {
    const tx = redis.multi().set(k.user(user.id), encode(user));
    if (previousEmail && previousEmail.toLowerCase() !== user.email.toLowerCase())
      tx.del(k.userByEmail(previousEmail));
    if (user.email) tx.set(k.userByEmail(user.email), user.id);
    await tx.exec();
  };

  const deleteSession = async (sessionToken: string): Promise<null> => {
    const session = decodeSession(await redis.get(k.session(sessionToken)), Number.NEGATIVE_INFINITY);
    const tx = redis.multi().del(k.session(sessionToken));
    if (session) tx.srem(k.userSessions(session.userId), sessionToken);
    await tx.exec();
    return null;
  };

  return {
    async createUser(user) {
      const created: AdapterUser = { ...user, id: user.id || randomUUID() };
      await saveUser(created);
      return created;
    },
    getUser,
    async getUserByEmail(email) {
      const id = await redis.get(k.userByEmail(email));
      return id === null ? null : getUser(id);
    },
    async getUserByAccount({ provider, providerAccountId }) {
      const text = await redis.get(k.account(provider, providerAccountId));
      if (text === null) return null;
      return getUser((JSON.parse(text) as AdapterAccount).userId);
    },
    async updateUser(patch) {
      const existing = await getUser(patch.id);
      if (!existing) throw new Error(`user ${patch.id} does not exist`);
      const updated: AdapterUser = { ...existing, ...patch };
      await saveUser(updated, existing.email);
      return updated;
    },
    async deleteUser(id) {
      const user = await getUser(id);
      const [accounts, sessions] = await Promise.all([
        redis.smembers(k.userAccounts(id)),
        redis.smembers(k.userSessions(id)),
      ]);
      const tx = redis.multi().del(k.user(id), k.userAccounts(id), k.userSessions(id));
      if (user?.email) tx.del(k.userByEmail(user.email));
      for (const a of accounts) {
        const at = a.indexOf(":");
        tx.del(k.account(a.slice(0, at), a.slice(at + 1)));
      }
      for (const s of sessions) tx.del(k.session(s));
      await tx.exec();
      return user;
    },
    async linkAccount(account) {
      await redis
        .multi()
        .set(k.account(account.provider, account.providerAccountId), encode(account))
        .sadd(k.userAccounts(account.userId), `${account.provider}:${account.providerAccountId}`)
        .exec();
      return account;
    },
    async unlinkAccount({ provider, providerAccountId }) {
      const text = await redis.get(k.account(provider, providerAccountId));
      if (text === null) return undefined;
      const account = JSON.parse(text) as AdapterAccount;
      await redis
        .multi()
        .del(k.account(provider, providerAccountId))
        .srem(k.userAccounts(account.userId), `${provider}:${providerAccountId}`)
        .exec();
      return account;
    },
    async createSession(session) {
      await redis
        .multi()
        .set(k.session(session.sessionToken), encode(session), "PX", ttlMs(session.expires, now()))
        .sadd(k.userSessions(session.userId), session.sessionToken)
        .exec();
      return session;
    },
    async getSessionAndUser(sessionToken) {
      const session = decodeSession(await redis.get(k.session(sessionToken)), now());
      if (!session) return null;
      const user = await getUser(session.userId);
      return user ? { session, user } : null;
    },
    async updateSession(patch) {
      const session = decodeSession(await redis.get(k.session(patch.sessionToken)), now());
      if (!session) return null;
      const updated: AdapterSession = { ...session, ...patch };
      await redis.set(k.session(updated.sessionToken), encode(updated), "PX", ttlMs(updated.expires, now()));
      return updated;
    },
    deleteSession,
    async createVerificationToken(token) {
      await redis.set(
        k.verification(token.identifier, token.token),
        encode(token),
        "PX",
        ttlMs(token.expires, now()),
      );
      return token;
    },
    async useVerificationToken({ identifier, token }) {
      // GETDEL: a token is usable exactly once, even with two sign-in tabs racing.
      return decodeVerification(await redis.getdel(k.verification(identifier, token)));
    },
    async revokeUserSessions(userId) {
      const tokens = await redis.smembers(k.userSessions(userId));
      if (tokens.length === 0) return 0;
      const removed = await redis.del(...tokens.map((t) => k.session(t)), k.userSessions(userId));
      return Math.max(0, removed - 1);
    },
  };
}
