// A small reader of the repository's Dockerfile (stages, instructions, ARG defaults) for the test that
// performs its steps without a container engine.
export interface Instruction {
  readonly op: string;
  readonly args: string;
}

export interface Stage {
  readonly name: string;
  readonly from: string;
  readonly instructions: readonly Instruction[];
}

/** Stages in order; line continuations joined, comments dropped, `${ARG}` in FROM resolved to defaults. */
export function parseDockerfile(text: string): Stage[] {
  const lines = text.replace(/\\\n/g, " ").split("\n");
  const args = new Map<string, string>();
  const stages: { name: string; from: string; instructions: Instruction[] }[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const [, op = "", rest = ""] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const upper = op.toUpperCase();
    if (upper === "ARG" && stages.length === 0) {
      const [key = "", value = ""] = rest.split("=");
      args.set(key, value);
      continue;
    }
    if (upper === "FROM") {
      const [image = "", , name = ""] = rest
        .replace(/\$\{(\w+)\}/g, (_m, k: string) => args.get(k) ?? "")
        .split(/\s+/);
      stages.push({ name, from: image, instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`instruction before FROM: ${line}`);
    stage.instructions.push({ op: upper, args: rest });
  }
  return stages;
}

/** COPY's options and paths: `COPY [--from=x] src... dest`. */
export function copyArgs(args: string): { from: string | undefined; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  const from = words.find((w) => w.startsWith("--from="))?.slice("--from=".length);
  const paths = words.filter((w) => !w.startsWith("--"));
  const dest = paths.pop() ?? "";
  return { from, sources: paths, dest };
}

/**
 * Whether .dockerignore (an allowlist of `*` then `!path` lines; the last match wins) lets `file`
 * (relative to the context) into the build context.
 */
export function inContext(dockerignore: string, file: string): boolean {
  let included = true;
  for (const raw of dockerignore.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const negate = line.startsWith("!");
    const pattern = (negate ? line.slice(1) : line).replace(/\/$/, "");
    const matches = pattern === "*" || file === pattern || file.startsWith(`${pattern}/`);
    if (matches) included = negate;
  }
  return included;
}
