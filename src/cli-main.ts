// The `resize-operator` command, loaded by the bin (src/cli.ts) once the Node version is known to be
// supported: `run` (the operator), `hash-password` (the dashboard's users file), `version`; unknown
// input gets a usage message and exit code 2.
import { readFileSync } from "node:fs";
import { hashPasswordCommand } from "./commands/hash-password.js";
import { ConfigError, configHelp, loadConfig } from "./config.js";
import { runOperator } from "./operator.js";

const USAGE = `Usage: resize-operator <command> [flags]

Commands:
  run            run the operator (controller, REST API, dashboard)
  hash-password  hash a password for the dashboard's users file (--help for details)
  version        print the version
  help           show this help

Flags of run (each also read from the environment variable named):
${configHelp()}
`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

export async function main(argv: readonly string[]): Promise<number> {
  const [command] = argv;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command === "version" || command === "--version") {
    process.stdout.write(`resize-operator ${version()}\n`);
    return 0;
  }
  if (command === "hash-password")
    return hashPasswordCommand(argv.slice(1), {
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
    });
  if (command === "run") {
    const rest = argv.slice(1);
    if (rest.includes("--help") || rest.includes("-h")) {
      process.stdout.write(USAGE);
      return 0;
    }
    try {
      await runOperator(loadConfig(rest));
      return 0;
    } catch (err) {
      if (err instanceof ConfigError) {
        // A user's mistake in flags or settings: the message is the whole story (its cause is the
        // parser's own error); a stack would bury it.
        process.stderr.write(`resize-operator run: ${err.message}\n`);
        return 2;
      }
      throw err;
    }
  }
  process.stderr.write(`resize-operator: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
  return 2;
}
