// `npm run generate` writes the files generated from the API model (src/api); `npm run
// check:generated` (`--check`) renders them in memory and fails, listing them, when any committed copy
// is stale. `--root DIR` points either at another tree (tests use a temporary copy). The plain-YAML
// install (manifests/install/) is rendered from the chart with the pinned helm (scripts/install-manifests.ts).
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import * as prettier from "prettier";
import type { GeneratedFile } from "../src/generate/file.js";
import { generatedFiles } from "../src/generate/files.js";
import { ensureTools } from "../testbed/tools.js";
import { INSTALL_DIR, installManifests } from "./install-manifests.js";

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

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Formatted with the repository's Prettier settings, so `npm run lint` accepts generated files as-is. */
async function format(file: GeneratedFile): Promise<GeneratedFile> {
  const options = await prettier.resolveConfig(path.join(repoRoot, file.path));
  return {
    path: file.path,
    content: await prettier.format(file.content, { ...options, filepath: file.path }),
  };
}

const fromModel = await Promise.all(generatedFiles().map(format));
const { paths: tools } = await ensureTools();
const install = await Promise.all((await installManifests(repoRoot, tools.helm, fromModel)).map(format));

const stale: string[] = [];
for (const file of [...fromModel, ...install]) {
  const target = path.join(root, file.path);
  if (read(target) === file.content) continue;
  stale.push(file.path);
  if (!values.check) {
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.content);
  }
}
// A template removed from the chart must not leave its rendered file behind.
const rendered = new Set(install.map((f) => path.posix.basename(f.path)));
for (const name of listDir(path.join(root, INSTALL_DIR))) {
  if (rendered.has(name)) continue;
  stale.push(`${INSTALL_DIR}/${name} (no longer rendered)`);
  if (!values.check) rmSync(path.join(root, INSTALL_DIR, name));
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
