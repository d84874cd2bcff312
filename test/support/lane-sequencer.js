// Jest test sequencer: `--shard=i/n` takes lane i of n as test/support/lanes.ts splits the files (by
// their measured seconds), instead of jest's split by path hash, which ignores how long a file takes.
// Sorting within a lane is jest's own. Loaded by jest itself, so plain JavaScript like global-setup.js.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Sequencer from "@jest/test-sequencer";
import { tsImport } from "tsx/esm/api";

const secondsFile = path.join(path.dirname(fileURLToPath(import.meta.url)), "integration-seconds.json");

export default class LaneSequencer extends Sequencer {
  async shard(tests, { shardIndex, shardCount }) {
    const { assignLanes } = await tsImport("./lanes.ts", import.meta.url);
    const seconds = JSON.parse(readFileSync(secondsFile, "utf8"));
    const relative = (t) => path.relative(t.context.config.rootDir, t.path).split(path.sep).join("/");
    const lane = new Set(assignLanes(tests.map(relative), seconds, shardCount)[shardIndex - 1]);
    return tests.filter((t) => lane.has(relative(t)));
  }
}
