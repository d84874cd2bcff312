#!/usr/bin/env node
// The `resize-operator` command. Sub-commands are added as the operator grows (`run` arrives with the
// reconcile loop); unknown input gets a usage message and exit code 2.
import { readFileSync } from "node:fs";

const USAGE = `Usage: resize-operator <command> [flags]

Commands:
  version      print the version
  help         show this help
`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

export function main(argv: readonly string[]): number {
  const [command] = argv;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command === "version" || command === "--version") {
    process.stdout.write(`resize-operator ${version()}\n`);
    return 0;
  }
  process.stderr.write(`resize-operator: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
  return 2;
}

process.exitCode = main(process.argv.slice(2));
