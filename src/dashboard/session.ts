// What a dashboard session holds (docs/design.md §8): Auth.js's default user fields plus the user's groups,
// which RBAC sees with the groups prefix. Shared by the Auth.js callbacks, the guard and the API.
import type { Session } from "@auth/core/types";
import type { SessionUser } from "./answers.js";

declare module "@auth/core/types" {
  interface User {
    /** Groups of the user (OIDC groups claim, users file); RBAC sees them with the groups prefix. */
    groups?: string[];
  }
}
declare module "fastify" {
  interface FastifyRequest {
    /** The dashboard's session, once the guard has read it (null: not signed in). */
    session?: DashboardSession | null;
  }
}
declare module "@auth/core/jwt" {
  interface JWT {
    groups?: string[];
  }
}

/** What the dashboard puts in a session: Auth.js's default fields plus groups, nothing else. */
export interface DashboardSession {
  readonly expires: string;
  readonly user: SessionUser;
}

/** A claim's groups: a list of strings, or one space/comma-separated string. */
export function groupsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === "string" && g !== "");
  if (typeof value === "string") return value.split(/[\s,]+/).filter(Boolean);
  return [];
}

/** The session the client sees: name, email, image and groups — never the token or the user id. */
export function publicSession(
  session: Session,
  source: {
    name?: string | null;
    email?: string | null;
    image?: string | null;
    picture?: string | null;
    groups?: readonly string[];
  },
): DashboardSession {
  return {
    expires: typeof session.expires === "string" ? session.expires : new Date(session.expires).toISOString(),
    user: {
      name: source.name ?? null,
      email: source.email ?? null,
      image: source.image ?? source.picture ?? null,
      groups: [...(source.groups ?? [])],
    },
  };
}
