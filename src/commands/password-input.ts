// Reads one password for `resize-operator hash-password`: piped (stdin is not a terminal) or typed at a
// prompt that echoes nothing. Prompts go to stderr, so stdout carries only the result and can be
// redirected into a file.
import type { Readable, Writable } from "node:stream";

export class PasswordInputError extends Error {}

/** The password in piped input: one line; the line break that ends it is not part of it. */
export function passwordFromPipe(text: string): string {
  const password = text.replace(/\r?\n$/, "");
  if (/[\r\n]/.test(password))
    throw new PasswordInputError("the input holds more than one line; pipe the password alone");
  if (password === "") throw new PasswordInputError("the password is empty");
  return password;
}

async function readAll(input: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString("utf8");
}

/** A terminal's input stream: raw mode turns its echo off. */
interface TtyInput extends Readable {
  readonly isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

const CTRL_C = "\u0003";
const CTRL_D = "\u0004";
const BACKSPACES = new Set(["\u007f", "\b"]);

/** Backspace removes what the user sees as one character (an emoji with modifiers, an accented letter). */
function withoutLastCharacter(text: string): string {
  const graphemes = Array.from(new Intl.Segmenter().segment(text), (s) => s.segment);
  return graphemes.slice(0, -1).join("");
}

/** One line typed without echo; Ctrl-C or Ctrl-D abandons it. */
function promptHidden(input: TtyInput, output: Writable, prompt: string): Promise<string> {
  // Echo off before the prompt shows: a user (or a script) may type as soon as they see it.
  input.setRawMode?.(true);
  output.write(prompt);
  input.setEncoding("utf8");
  input.resume();
  return new Promise((resolve, reject) => {
    let typed = "";
    const finish = (error?: Error): void => {
      input.off("data", onData);
      input.setRawMode?.(false);
      input.pause();
      output.write("\n");
      if (error) reject(error);
      else resolve(typed);
    };
    // Pasted text arrives as one chunk: handled a character at a time, so a pasted line break ends it.
    const onData = (chunk: string): void => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n") {
          finish();
          return;
        }
        if (ch === CTRL_C || ch === CTRL_D) {
          finish(new PasswordInputError("cancelled"));
          return;
        }
        if (BACKSPACES.has(ch)) typed = withoutLastCharacter(typed);
        else typed += ch;
      }
    };
    input.on("data", onData);
  });
}

/** The password from `input`: the whole piped input, or typed twice at a terminal. */
export async function readPassword(input: TtyInput, output: Writable): Promise<string> {
  if (!input.isTTY) return passwordFromPipe(await readAll(input));
  const first = await promptHidden(input, output, "Password: ");
  if (first === "") throw new PasswordInputError("the password is empty");
  const again = await promptHidden(input, output, "Password (again): ");
  if (again !== first) throw new PasswordInputError("the passwords differ");
  return first;
}
