// The benchmark runner's arguments (bench/run.ts): names of benchmarks, and flags for them — an
// argument starting with `--`, with the next argument as its value unless it is `--name=value` or the
// next one is a flag too. `provisioning --jobs 2000` is the name `provisioning` and `--jobs 2000`.
export function splitArgs(args: readonly string[]): { names: string[]; flags: string[] } {
  const names: string[] = [];
  const flags: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (!arg.startsWith("--")) {
      names.push(arg);
      continue;
    }
    flags.push(arg);
    const next = args[i + 1];
    if (!arg.includes("=") && next !== undefined && !next.startsWith("--")) {
      flags.push(next);
      i++;
    }
  }
  return { names, flags };
}
