// `resize-operator hash-password`: the password hash for the dashboard's users file
// (AUTH_CREDENTIALS_FILE), made with the same code that verifies it at sign-in (passwords.ts), so the
// format can never drift. With --username it prints a whole users-file entry instead.
import type { Readable, Writable } from "node:stream";
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import { CredentialUser } from "../dashboard/credentials.js";
import { hashPassword } from "../dashboard/passwords.js";
import { PasswordInputError, readPassword } from "./password-input.js";

export const HASH_PASSWORD_USAGE = `Usage: resize-operator hash-password [--username NAME [--email EMAIL] [--name NAME] [--group GROUP]...]

Reads a password (piped on stdin, or typed twice at a prompt that does not echo) and prints its
scrypt hash, scrypt$N$r$p$salt$hash, for the "password" field of the dashboard's users file
(AUTH_CREDENTIALS_FILE). With --username it prints a whole entry to put under "users:".

  printf '%s\\n' "$PASSWORD" | resize-operator hash-password
  resize-operator hash-password --username ann --email ann@example.com --group sre >> users.yaml
`;

export interface CommandIo {
  readonly stdin: Readable & { readonly isTTY?: boolean; setRawMode?(mode: boolean): unknown };
  readonly stdout: Writable;
  readonly stderr: Writable;
}

function entryOptions(argv: readonly string[]) {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      username: { type: "string" },
      email: { type: "string" },
      name: { type: "string" },
      group: { type: "string", multiple: true },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.username === undefined && (values.email ?? values.name ?? values.group) !== undefined)
    throw new PasswordInputError("--email, --name and --group describe a user: add --username");
  return values;
}

/** The users-file entry (validated as the dashboard will validate it), as a one-item YAML list. */
export function usersFileEntry(
  hash: string,
  user: { username: string; email?: string; name?: string; groups?: readonly string[] },
): string {
  const entry = CredentialUser.parse({
    username: user.username,
    password: hash,
    ...(user.email !== undefined && { email: user.email }),
    ...(user.name !== undefined && { name: user.name }),
    ...(user.groups?.length && { groups: [...user.groups] }),
  });
  // Default groups ([]) are left out, as a person would write the entry.
  const { groups, ...rest } = entry;
  return stringify([groups.length > 0 ? { ...rest, groups } : rest]);
}

/** Runs the command; the exit code (2 for bad usage or input). */
export async function hashPasswordCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  let options: ReturnType<typeof entryOptions>;
  try {
    options = entryOptions(argv);
  } catch (err) {
    io.stderr.write(`resize-operator hash-password: ${(err as Error).message}\n\n${HASH_PASSWORD_USAGE}`);
    return 2;
  }
  if (options.help) {
    io.stdout.write(HASH_PASSWORD_USAGE);
    return 0;
  }
  let password: string;
  try {
    password = await readPassword(io.stdin, io.stderr);
  } catch (err) {
    if (!(err instanceof PasswordInputError)) throw err;
    // The user's input was refused: a sentence for the terminal, not a log line with a stack.
    io.stderr.write(`resize-operator hash-password: ${err.message}\n`);
    return 2;
  }
  const hash = await hashPassword(password);
  if (options.username === undefined) {
    io.stdout.write(`${hash}\n`);
    return 0;
  }
  io.stdout.write(
    usersFileEntry(hash, {
      username: options.username,
      ...(options.email !== undefined && { email: options.email }),
      ...(options.name !== undefined && { name: options.name }),
      ...(options.group && { groups: options.group }),
    }),
  );
  return 0;
}
