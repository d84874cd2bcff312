// `npm run generate` writes the files generated from the API model (src/api); `npm run
// check:generated` (`--check`) renders them in memory and fails, listing them, when any committed copy
// is stale. `--root DIR` points either at another tree (tests use a temporary copy).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import * as prettier from "prettier";
import { generatedFiles } from "../src/api/generate/files.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: { check: { type: "boolean", default: false }, root: { type: "string", default: repoRoot } },
});
const root = path.resolve(values.root);

function read(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

const stale: string[] = [];
for (const file of generatedFiles()) {
  // Formatted with the repository's Prettier settings, so `npm run lint` accepts generated files as-is.
  const options = await prettier.resolveConfig(path.join(repoRoot, file.path));
  const content = await prettier.format(file.content, { ...options, filepath: file.path });
  const target = path.join(root, file.path);
  if (read(target) === content) continue;
  stale.push(file.path);
  if (!values.check) {
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
}

if (values.check && stale.length > 0) {
  process.stderr.write(
    `generated files are stale (run \`npm run generate\` and commit the result):\n${stale.map((f) => `  ${f}\n`).join("")}`,
  );
  process.exit(1);
}
process.stdout.write(
  values.check
    ? "generated files are up to date\n"
    : `${stale.length === 0 ? "no changes" : `wrote ${stale.join(", ")}`}\n`,
);
