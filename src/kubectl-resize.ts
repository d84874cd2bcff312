#!/usr/bin/env node
// The `kubectl-resize` bin: kubectl finds it on PATH and runs it for `kubectl resize ...`. Only the
// version check is imported statically: the plugin's modules are loaded after it, since on an older
// Node the Kubernetes client's HTTP library throws while being imported (see node-version.ts).
import { exitOnUnsupportedNode } from "./node-version.js";

exitOnUnsupportedNode();
const { runPlugin } = await import("./plugin/main.js");
process.exitCode = await runPlugin(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
