// The browser loads the UI's modules as tsc emits them (no bundler), so every module it loads at run
// time must be reachable by a relative path and load nothing but such modules: a value import of zod,
// node:*, or a server module that imports them would break the page. Type imports are erased.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "../../../testbed/local.js";

const UI = path.join(repoRoot, "src", "dashboard", "ui");

/** Specifiers of the imports and re-exports that survive compilation (not `import type`). */
function valueImports(file: string): string[] {
  const source = readFileSync(file, "utf8");
  const statements = source.matchAll(/^(import|export)(?!\s+type\b)([^;]*?)\sfrom\s+"([^"]+)";/gms);
  return [...statements]
    .map((m) => m[3] ?? "")
    .concat([...source.matchAll(/^import\s+"([^"]+)";/gm)].map((m) => m[1] ?? ""));
}

test("the UI's run-time imports are relative and reach only import-free shared modules", () => {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of valueImports(file)) {
      expect(`${path.relative(repoRoot, file)} imports ${specifier}`).toMatch(/ imports \.\.?\//);
      const target = path.resolve(path.dirname(file), specifier.replace(/\.js$/, ".ts"));
      if (!target.startsWith(UI + path.sep))
        expect(`${path.relative(repoRoot, target)}: ${valueImports(target).join(", ")}`).toBe(
          `${path.relative(repoRoot, target)}: `,
        );
      visit(target);
    }
  };
  const entries = readdirSync(UI).filter((f) => f.endsWith(".ts"));
  expect(entries).toContain("app.ts");
  for (const f of entries) visit(path.join(UI, f));
  // The shared model is really used from here (not a copy).
  expect([...seen].map((f) => path.relative(repoRoot, f))).toContain(path.join("src", "api", "lifecycle.ts"));
});
