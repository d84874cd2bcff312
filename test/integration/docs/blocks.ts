// The shell blocks of the user docs, and how the docs test runs them: each fenced `sh` (or `bash`,
// `shell`) block is taken from the Markdown as written, with only the substitutions listed here
// applied, each with the reason it is needed on a machine without containers.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";

export interface DocBlock {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The nearest heading above it. */
  readonly heading: string;
  readonly code: string;
}

/** A shell fence, also indented (a block inside a list item); its code is de-indented by as much. */
const SHELL_FENCE = /^( *)```(sh|bash|shell)\s*$/;

export function shellBlocks(repoRoot: string, file: string): DocBlock[] {
  const lines = readFileSync(path.join(repoRoot, file), "utf8").split("\n");
  const blocks: DocBlock[] = [];
  let heading = "";
  // Inside another language's block a `# comment` is not a heading.
  let otherBlock = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const indent = SHELL_FENCE.exec(line)?.[1];
    if (indent === undefined) {
      if (/^ *```/.test(line)) otherBlock = !otherBlock;
      else if (!otherBlock && /^#{1,6} /.test(line)) heading = line.replace(/^#+ /, "");
      continue;
    }
    const end = lines.indexOf(`${indent}\`\`\``, i + 1);
    if (end < 0) throw new Error(`${file}:${i + 1}: unterminated code block`);
    const code = lines.slice(i + 1, end).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l));
    blocks.push({ file, line: i + 1, heading, code: code.join("\n") });
    i = end;
  }
  return blocks;
}

export const blockId = (b: DocBlock): string =>
  `${b.file}:${b.line} (${b.heading}): ${b.code.split("\n")[0] ?? ""}`;

/** A block the test does not run, matched by its text, and why. */
export interface Exemption {
  readonly file: string;
  readonly match: RegExp;
  readonly why: string;
}

/** A change to a block's text before it runs, and why it must be made. */
export interface Substitution {
  readonly from: RegExp;
  readonly to: string;
  readonly why: string;
}

export function substitute(code: string, substitutions: readonly Substitution[]): string {
  return substitutions.reduce((text, s) => text.replace(s.from, s.to), code);
}

const run = promisify(execFile);

export interface BlockRun {
  /** A file that carries the shell's variables from one block to the next of the same document. */
  readonly state: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** What else to show when the block fails (the cluster's state, say): a failed wait says little. */
  readonly context?: () => Promise<string>;
}

/**
 * Runs one block (`code`: its text after substitutions) as a reader's shell would: bash with
 * `set -euo pipefail`, the variables the blocks before it set. Resolves with its stdout; a failure
 * names the block, with what ran, both outputs and the context.
 */
export async function runBlock(block: DocBlock, code: string, options: BlockRun): Promise<string> {
  const script = `set -euo pipefail\nset -a\n[ -f "$DOC_STATE" ] && . "$DOC_STATE"\n${code}\nexport -p > "$DOC_STATE"\n`;
  try {
    const { stdout } = await run("bash", ["-c", script], {
      cwd: options.cwd,
      env: { ...options.env, DOC_STATE: options.state },
      timeout: 300_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (err) {
    const {
      code: exit,
      stdout = "",
      stderr = "",
    } = err as { code?: number; stdout?: string; stderr?: string };
    const context = options.context ? `\n--- then:\n${await options.context()}` : "";
    throw new Error(
      `${blockId(block)}\nexit ${String(exit)}\n--- ran:\n${code}\n--- stdout:\n${stdout}\n--- stderr:\n${stderr}${context}`,
      { cause: err },
    );
  }
}
