#!/usr/bin/env node
// The `resize-operator` bin. Only the version check is imported statically: every other module is
// loaded after it, since on an older Node a dependency throws while being imported (see node-version.ts).
import { exitOnUnsupportedNode } from "./node-version.js";

exitOnUnsupportedNode();
const { main } = await import("./cli-main.js");
process.exitCode = await main(process.argv.slice(2));
