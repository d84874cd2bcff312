// `resize-operator hash-password` in process: input parsing, the users-file entry, and the command with
// piped input (a non-terminal stream) whose output the dashboard's own verify function accepts.
import { PassThrough, Writable } from "node:stream";
import { hashPasswordCommand, usersFileEntry } from "../../../src/commands/hash-password.js";
import { passwordFromPipe, PasswordInputError } from "../../../src/commands/password-input.js";
import { parseUsers, verifyCredentials } from "../../../src/dashboard/credentials.js";
import { verifyPassword } from "../../../src/dashboard/passwords.js";

class Capture extends Writable {
  text = "";
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

async function runCommand(argv: string[], input: string) {
  const stdin = new PassThrough();
  stdin.end(input);
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await hashPasswordCommand(argv, { stdin, stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

test("piped input: one line, its final line break (LF or CRLF) is not part of the password", () => {
  expect(passwordFromPipe("pw\n")).toBe("pw");
  expect(passwordFromPipe("pw\r\n")).toBe("pw");
  expect(passwordFromPipe("pw")).toBe("pw");
  expect(passwordFromPipe(" spaces kept \n")).toBe(" spaces kept ");
  for (const bad of ["", "\n", "a\nb\n", "a\rb"])
    expect(() => passwordFromPipe(bad)).toThrow(PasswordInputError);
});

test("prints a hash the dashboard verifies, and nothing else", async () => {
  const out = await runCommand([], "correct horse battery\n");
  expect(out).toMatchObject({ code: 0, stderr: "" });
  expect(out.stdout).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+\n$/);
  await expect(verifyPassword("correct horse battery", out.stdout.trim())).resolves.toBe(true);
  await expect(verifyPassword("correct horse battery\n", out.stdout.trim())).resolves.toBe(false);
});

test("--username prints a users-file entry the credentials provider signs in with", async () => {
  const out = await runCommand(
    ["--username", "ann", "--email", "ann@example.com", "--name", "Ann", "--group", "sre", "--group", "ml"],
    "pw-ann\n",
  );
  expect(out.code).toBe(0);
  const users = parseUsers(`users:\n${out.stdout}`);
  expect(users).toHaveLength(1);
  await expect(verifyCredentials(users, "ann", "pw-ann")).resolves.toEqual({
    id: "ann",
    name: "Ann",
    email: "ann@example.com",
    groups: ["sre", "ml"],
  });
});

test("bad usage and bad input exit 2 with a message on stderr and nothing on stdout", async () => {
  for (const [argv, input, message] of [
    [[], "", "the password is empty"],
    [[], "two\nlines\n", "more than one line"],
    [["--email", "a@example.com"], "pw\n", "add --username"],
    [["--colour", "red"], "pw\n", "Unknown option '--colour'"],
  ] as const) {
    const out = await runCommand([...argv], input);
    expect(out).toMatchObject({ code: 2, stdout: "" });
    expect(out.stderr).toContain(message);
  }
});

test("an entry the dashboard would refuse is refused here too", () => {
  expect(() => usersFileEntry("scrypt$32768$8$1$c2FsdHNhbHRzYWx0$aGFzaA", { username: "" })).toThrow();
  expect(() => usersFileEntry("not a hash", { username: "ann" })).toThrow();
});
