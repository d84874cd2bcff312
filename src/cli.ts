#!/usr/bin/env node
// The `resize-operator` bin. Only the version check is imported statically: every other module is
// loaded after it, since on an older Node a dependency throws while being imported (see node-version.ts).
import { exitOnUnsupportedNode } from "./node-version.js";

exitOnUnsupportedNode();
const { main } = await import("./cli-main.js");
const { exitWhenDone } = await import("./runtime/exit-when-done.js");
process.exitCode = await main(process.argv.slice(2));
exitWhenDone(2_000);
