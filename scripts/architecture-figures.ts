// `tsx scripts/architecture-figures.ts [git-ref]`: the figures of the layout (docs/architecture.md) on
// the working tree, or on a commit (e.g. d3c214b, before the target-kind seam), so that a before/after
// comparison can be recomputed: files per folder of src/, imports into a controller's insides from
// outside it, the files that name a target kind outside that kind's module, and the retired names of
// a pass (docs/architecture.md "One pass"; e.g. 4e913e4, before the one vocabulary).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const ref = process.argv[2];

/** src/'s .ts files (paths relative to src/) and a reader, from the working tree or from `ref`. */
function tree(): { files: string[]; read: (file: string) => string } {
  if (ref !== undefined) {
    const listed = execFileSync("git", ["ls-tree", "-r", "--name-only", ref, "src/"], { encoding: "utf8" });
    return {
      files: listed
        .split("\n")
        .filter((f) => f.endsWith(".ts") && !f.startsWith("src/dashboard/ui/"))
        .map((f) => f.slice("src/".length)),
      read: (file) =>
        execFileSync("git", ["show", `${ref}:src/${file}`], { encoding: "utf8", maxBuffer: 16 << 20 }),
    };
  }
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((entry) => {
      const full = path.join(dir, entry);
      if (statSync(full).isDirectory()) return full === "src/dashboard/ui" ? [] : walk(full);
      return entry.endsWith(".ts") ? [path.relative("src", full)] : [];
    });
  return { files: walk("src"), read: (file) => readFileSync(path.join("src", file), "utf8") };
}

const { files, read } = tree();
const texts = new Map(files.map((f) => [f, read(f)]));

// 1. Files directly in each folder that holds controller or target code.
const perFolder = new Map<string, number>();
for (const f of files) {
  const dir = path.dirname(f);
  if (/^(controller|controllers|targets|cache)(\/|$)/.test(dir))
    perFolder.set(dir, (perFolder.get(dir) ?? 0) + 1);
}

// 2. Import statements from outside a controller's folder into its insides. Before the seam all of
// controller/ was one folder with no public face; after it, a controller's face is controller.ts and
// permissions.ts (test/unit/architecture/layers.test.ts).
const IMPORT = /(?:import|export)\s[^;]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;
const folderOf = (file: string): string | undefined =>
  /^controller\//.test(file) ? "controller" : /^controllers\/([^/]+)\//.exec(file)?.[0].slice(0, -1);
const isFace = (file: string): boolean => /^controllers\/[^/]+\/(controller|permissions)\.ts$/.test(file);
const intoInsides: string[] = [];
for (const [file, text] of texts)
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? "";
    const target = path.normalize(path.join(path.dirname(file), spec)).replace(/\.js$/, ".ts");
    const owner = folderOf(target);
    if (owner !== undefined && owner !== folderOf(file) && !isFace(target))
      intoInsides.push(`${file} -> ${target}`);
  }

// 3. Files naming a kind outside its module (comments included: a comment naming a kind is knowledge of it).
const KINDS: readonly { name: string; words: RegExp; module: RegExp }[] = [
  {
    name: "Karpenter",
    words: /karpenter/i,
    module: /^(controller\/karpenter[^/]*\.ts|targets\/karpenter(\.ts|\/.*))$/,
  },
  {
    name: "Karpenter's kinds (NodePool, NodeClaim)",
    words: /nodepool|nodeclaim/i,
    module: /^(controller\/karpenter[^/]*\.ts|targets\/karpenter(\.ts|\/.*))$/,
  },
  {
    name: "apps (Deployment, ReplicaSet, StatefulSet)",
    words: /(?<!machine)deployment|replicaset|statefulset/i,
    module: /^targets\/apps(\.ts|\/)/,
  },
  {
    name: "cluster-api (MachineDeployment, MachineSet, MachinePool)",
    words: /machinedeployment|machineset|machinepool|cluster api|cluster\.x-k8s\.io/i,
    module: /^targets\/cluster-api(\.ts|\/)/,
  },
];
const decideDir = files.some((f) => f.startsWith("controllers/resize/decide/"))
  ? "controllers/resize/decide/"
  : "controller/decide/";

console.log(`# Architecture figures (${ref ?? "working tree"})\n`);
console.log("## .ts files directly in each folder");
for (const [dir, n] of [...perFolder].sort()) console.log(`${String(n).padStart(4)}  src/${dir}`);
console.log(`\n## imports into a controller's insides from outside its folder: ${intoInsides.length}`);
for (const line of intoInsides.sort()) console.log(`      ${line}`);
console.log("\n## files naming a kind outside its module (src/; in the decision's pure core)");
for (const kind of KINDS) {
  const naming = files.filter((f) => !kind.module.test(f) && kind.words.test(texts.get(f) ?? ""));
  const inDecide = naming.filter((f) => f.startsWith(decideDir));
  const mentions = (f: string): number =>
    (texts.get(f) ?? "").match(new RegExp(kind.words.source, "gi"))?.length ?? 0;
  console.log(
    `${String(naming.length).padStart(4)} files (${inDecide.length} in ${decideDir})  ${kind.name}`,
  );
  for (const f of inDecide) console.log(`      ${f}: ${mentions(f)}`);
}

// 4. The retired names of a pass (docs/architecture.md "One pass"), as words in the code of the
// controllers' folders (controllers/, provisioning/: events/series.ts has an Observation of its own, an
// Event series', not a pass's), comments left out (a comment may say "turn" or "pass" in plain
// English). `Draft` counts only the bare class name, not RequestDraft, PlanDraft or ProvisioningDraft.
const RETIRED: readonly { name: string; word: RegExp }[] = [
  { name: "Turn", word: /\bTurn\b/g },
  { name: "FIRST_TURN", word: /\bFIRST_TURN\b/g },
  { name: "Pass (a type)", word: /\bPass\b/g },
  { name: "Observation", word: /\bObservation\b/g },
  { name: "ProvisioningObservation", word: /\bProvisioningObservation\b/g },
  { name: "Draft (bare)", word: /\bDraft\b/g },
];
/** `text` without its comments (line comments and blocks; a string holding // is rare enough here). */
const codeOf = (text: string): string =>
  text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
const code = new Map(
  [...texts].filter(([f]) => /^(controllers|provisioning)\//.test(f)).map(([f, text]) => [f, codeOf(text)]),
);
console.log(
  "\n## retired names of a pass: occurrences in the code of src/controllers/ and src/provisioning/",
);
for (const { name, word } of RETIRED) {
  const perFile = [...code]
    .map(([f, text]) => [f, text.match(word)?.length ?? 0] as const)
    .filter(([, n]) => n > 0);
  const total = perFile.reduce((sum, [, n]) => sum + n, 0);
  console.log(`${String(total).padStart(4)} (${perFile.length} files)  ${name}`);
  for (const [f, n] of perFile.sort()) console.log(`      ${f}: ${n}`);
}
