// Users of the credentials provider, from a YAML file (typically a mounted Secret). The file is read
// again on every sign-in, so a rotated Secret takes effect without a restart, and a broken file fails
// the sign-in (logged) instead of the process.
import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { z } from "zod";
import { hashPassword, isPasswordHash, verifyPassword } from "./passwords.js";

export const CredentialUser = z
  .object({
    username: z.string().min(1).max(253),
    password: z.string().refine(isPasswordHash, "must be a scrypt$N$r$p$salt$hash password hash"),
    /** The RBAC identity is built from it; defaults to the username. */
    email: z.string().min(1).max(320).optional(),
    name: z.string().max(256).optional(),
    groups: z.array(z.string().min(1).max(256)).max(100).default([]),
  })
  .strict();
export type CredentialUser = z.infer<typeof CredentialUser>;

export const UsersFile = z.object({ users: z.array(CredentialUser).max(10_000) }).strict();

/** What a successful check yields: the user as the sign-in library sees it. */
export interface VerifiedUser {
  readonly id: string;
  readonly name: string;
  readonly email: string;
  readonly groups: string[];
}

export function parseUsers(text: string): CredentialUser[] {
  return UsersFile.parse(parse(text)).users;
}

// Checked against when the username is unknown, so that the answer takes as long as for a wrong
// password and timing does not tell which of the two was wrong.
let decoy: Promise<string> | undefined;

/** The user whose password matches; undefined for an unknown user or a wrong password alike. */
export async function verifyCredentials(
  users: readonly CredentialUser[],
  username: string,
  password: string,
): Promise<VerifiedUser | undefined> {
  const user = users.find((u) => u.username === username);
  decoy ??= hashPassword("decoy password that never matches");
  const ok = await verifyPassword(password, user?.password ?? (await decoy));
  if (!user || !ok) return undefined;
  return {
    id: user.username,
    name: user.name ?? user.username,
    email: user.email ?? user.username,
    groups: [...user.groups],
  };
}

export type UserSource = () => Promise<readonly CredentialUser[]>;

export function usersFromFile(file: string): UserSource {
  return async () => parseUsers(await readFile(file, "utf8"));
}
