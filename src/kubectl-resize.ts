#!/usr/bin/env node
// The `kubectl-resize` bin: kubectl finds it on PATH and runs it for `kubectl resize ...`.
import { runPlugin } from "./plugin/main.js";

process.exitCode = await runPlugin(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
