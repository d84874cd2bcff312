// The barrel policy (CONTRIBUTING.md "Layers"): a file is imported from where its exports are defined;
// the one barrel — a file that only re-exports — is src/api/index.ts, the model's public surface.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../src");
const THE_BARREL = "api/index.ts";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return entry.endsWith(".ts") ? [path.relative(SRC, full)] : [];
  });
}

/** The file's statements once comments and re-exports are removed: nothing is left in a barrel. */
function ownCode(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "")
    .replace(/export\s+(type\s+)?(\*|\{[^}]*\})\s+from\s+["'][^"']+["'];?/g, "")
    .trim();
}

const barrels = (files: readonly string[]): string[] =>
  files.filter((file) => ownCode(readFileSync(path.join(SRC, file), "utf8")) === "");

test("the only barrel in src/ is src/api/index.ts", () => {
  expect(barrels(sourceFiles(SRC))).toEqual([THE_BARREL]);
});
