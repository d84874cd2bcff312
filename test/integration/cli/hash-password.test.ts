// `resize-operator hash-password` as a user runs it: the real CLI process, the password piped on stdin
// or typed at a real terminal (a pseudo-terminal from util-linux `script`), the output checked with
// the dashboard's own verify function.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseUsers, verifyCredentials } from "../../../src/dashboard/credentials.js";
import { verifyPassword } from "../../../src/dashboard/passwords.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const CLI = [process.execPath, "--import", "tsx", "src/cli.ts", "hash-password"];

interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command` with `input` piped to its stdin. */
function run(command: readonly string[], input: string): Promise<Result> {
  const [bin = "", ...args] = command;
  const child = spawn(bin, args, { cwd: repoRoot, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  child.stdin.end(input);
  return new Promise((resolve) => {
    child.on("close", (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The CLI at a terminal: `script` gives it a pseudo-terminal, and what `script` prints is what the
 * terminal would show, echo included. Each answer is typed once its prompt is on the screen (typed
 * earlier, the terminal would still be echoing).
 */
function runAtTerminal(answers: readonly string[]): Promise<Result> {
  const command = CLI.map((a) => `'${a}'`).join(" ");
  const child = spawn("script", ["-qec", command, "/dev/null"], { cwd: repoRoot, stdio: "pipe" });
  let stdout = "";
  let typed = 0;
  child.stdout.on("data", (c: Buffer) => {
    stdout += c.toString();
    const prompts = stdout.split("Password").length - 1;
    while (typed < Math.min(prompts, answers.length)) child.stdin.write(`${answers[typed++] ?? ""}\r`);
  });
  // stdin stays open: `script` exits with the CLI, and an early end of input might reach it as Ctrl-D.
  return new Promise((resolve) =>
    child.on("close", (code) => {
      child.stdin.destroy();
      resolve({ code, stdout, stderr: "" });
    }),
  );
}

test("piped: prints one hash line that verifies against the password", async () => {
  const password = "p\u00e4ss w\u00f6rd \u{1F511} with spaces";
  const result = await run(CLI, `${password}\n`);
  expect(result).toMatchObject({ code: 0, stderr: "" });
  const lines = result.stdout.split("\n");
  expect(lines).toHaveLength(2);
  expect(lines[1]).toBe("");
  await expect(verifyPassword(password, lines[0] ?? "")).resolves.toBe(true);
  await expect(verifyPassword("p\u00e4ss", lines[0] ?? "")).resolves.toBe(false);
});

test("piped with --username: an entry for the users file that signs in", async () => {
  const result = await run([...CLI, "--username", "bob", "--group", "ops"], "hunter2-but-longer\n");
  expect(result.code).toBe(0);
  const users = parseUsers(`users:\n${result.stdout}`);
  await expect(verifyCredentials(users, "bob", "hunter2-but-longer")).resolves.toMatchObject({
    id: "bob",
    groups: ["ops"],
  });
});

test("at a terminal: asks twice without echoing, prints the hash", async () => {
  const password = "typed-at-a-terminal";
  const result = await runAtTerminal([password, password]);
  expect(result.code).toBe(0);
  expect(result.stdout).toContain("Password: ");
  expect(result.stdout).toContain("Password (again): ");
  expect(result.stdout).not.toContain(password);
  const hash = /scrypt\$\S+/.exec(result.stdout)?.[0] ?? "";
  await expect(verifyPassword(password, hash)).resolves.toBe(true);
}, 60_000);

test("at a terminal: two different passwords are refused", async () => {
  const result = await runAtTerminal(["first-one", "second-one"]);
  expect(result.code).toBe(2);
  expect(result.stdout).toContain("the passwords differ");
  expect(result.stdout).not.toMatch(/scrypt\$/);
}, 60_000);
