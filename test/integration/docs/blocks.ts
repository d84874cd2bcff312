// The shell blocks of the user docs, and how the docs test runs them: each fenced `sh` (or `bash`,
// `shell`) block is taken from the Markdown as written, with only the substitutions listed here
// applied, each with the reason it is needed on a machine without containers.
import { readFileSync } from "node:fs";
import path from "node:path";

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
