// The layering of src/ (docs/architecture.md), checked on the import graph: no import cycles between
// files, and no file imports from a layer above its own. A new module finds its place in LAYERS.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../src");

/** Lowest first; a file may import its own layer and the layers below. First match wins. */
const LAYERS: readonly { readonly name: string; readonly files: RegExp }[] = [
  // Imports nothing: the bins load it before anything that an old Node cannot import.
  { name: "platform", files: /^node-version\.ts$/ },
  { name: "model", files: /^(api\/(?!kinds\.ts$)|rbac\/permissions\.ts$|rbac\/user-roles\.ts$)/ },
  { name: "queue", files: /^queue\// },
  { name: "runtime", files: /^runtime\// },
  // The model's kinds in the typed client's shape (ResourceKind): above the runtime they are typed for.
  { name: "kinds", files: /^api\/kinds\.ts$/ },
  { name: "redis", files: /^redis\// },
  { name: "events", files: /^events\// },
  // What the operator knows of each target kind, behind one interface (targets/index.ts), and the read
  // path every kind shares (informers, /scale, readiness from Nodes, instances).
  { name: "targets", files: /^targets\// },
  // The caches and indexes of the controllers' own kinds, shared by every controller and reader.
  { name: "cache", files: /^cache\// },
  // One folder per controller — resize, retention, provisioning — (its reconcile and its watches in
  // controller.ts, which is also its public face with permissions.ts); at the root, what the
  // controllers share (conditions, errors, the request's Events, the rule of a finished request's
  // retention).
  { name: "controllers", files: /^controllers\// },
  { name: "booking", files: /^booking\// },
  { name: "operations", files: /^operations\// },
  { name: "rest", files: /^rest\/(?!app\.ts$)/ },
  { name: "discovery", files: /^discovery\// },
  { name: "dashboard", files: /^(dashboard|commands)\// },
  { name: "observability", files: /^observability\// },
  { name: "plugin", files: /^(plugin\/|kubectl-resize\.ts$)/ },
  // The one Fastify instance every HTTP surface is served on (see the HTTP stack test below).
  { name: "http", files: /^rest\/app\.ts$/ },
  { name: "permissions", files: /^rbac\/index\.ts$/ },
  { name: "generate", files: /^generate\// },
  { name: "operator", files: /^(config|operator|cli|cli-main)\.ts$/ },
];

/**
 * Imports the layer order allows but that would tie a reader to another's insides; each was made once
 * and its shared piece moved down. A match is an error whatever the layers say.
 */
const FORBIDDEN: readonly { readonly from: RegExp; readonly to: RegExp; readonly why: string }[] = [
  {
    from: /^(plugin\/|kubectl-resize\.ts$)/,
    to: /^(dashboard|commands)\//,
    why: "the plugin reads Events through events/view.ts and the queue through queue/, not the dashboard",
  },
  {
    from: /^observability\//,
    to: /^(dashboard|commands)\//,
    why: "the metrics read the queue on the caches (cache/group-queue.ts), not the dashboard's answers",
  },
  {
    from: /^operations\//,
    to: /^(controllers|cache|targets)\//,
    why: "the operations controller is handed its informers, and a request's group key is the model's (api/identity.ts)",
  },
  {
    from: /^dashboard\//,
    to: /^(controllers\/|targets\/|cache\/(?!group-queue\.ts$))/,
    why: "the dashboard reads the queue through cache/group-queue.ts only, never the controllers' internals",
  },
];

function forbidden(from: string, to: string): string | undefined {
  return FORBIDDEN.find((rule) => rule.from.test(from) && rule.to.test(to))?.why;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return entry === "ui" ? [] : sourceFiles(full);
    return entry.endsWith(".ts") ? [path.relative(SRC, full)] : [];
  });
}

const IMPORT = /(?:import|export)\s[^;]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;

/** file → the src files it imports (relative specifiers only; packages are not layers). */
function importGraph(files: readonly string[]): Map<string, string[]> {
  return new Map(
    files.map((file) => {
      const text = readFileSync(path.join(SRC, file), "utf8");
      const targets = [...text.matchAll(IMPORT)]
        .map((m) => m[1] ?? m[2] ?? "")
        .map((spec) => path.normalize(path.join(path.dirname(file), spec)).replace(/\.js$/, ".ts"))
        .filter((target) => files.includes(target));
      return [file, [...new Set(targets)]];
    }),
  );
}

function layerOf(file: string): number {
  const index = LAYERS.findIndex((l) => l.files.test(file));
  if (index < 0) throw new Error(`${file} is in no layer: add it to LAYERS`);
  return index;
}

/** Strongly connected components with more than one file (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) component.push(w);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const graph = importGraph(sourceFiles(SRC));

test("src/ has no import cycles", () => {
  expect(graph.size).toBeGreaterThan(50);
  expect(cycles(graph)).toEqual([]);
});

test("no file imports from a layer above its own", () => {
  const upward = [...graph].flatMap(([file, targets]) =>
    targets
      .filter((t) => layerOf(t) > layerOf(file))
      .map(
        (t) =>
          `${file} (${LAYERS[layerOf(file)]?.name ?? ""}) imports ${t} (${LAYERS[layerOf(t)]?.name ?? ""})`,
      ),
  );
  expect(upward).toEqual([]);
});

test("no file makes a forbidden import", () => {
  const made = [...graph].flatMap(([file, targets]) =>
    targets.flatMap((t) => {
      const why = forbidden(file, t);
      return why === undefined ? [] : [`${file} imports ${t}: ${why}`];
    }),
  );
  expect(made).toEqual([]);
});

/** The controller folder a file is in (controllers/<name>/...), or undefined. */
function controllerOf(file: string): string | undefined {
  return /^controllers\/([^/]+)\//.exec(file)?.[1];
}

/**
 * Whether `to` is a controller's insides as seen from `from`. A controller's public face is what wires it
 * (controller.ts, as Karpenter's and controller-runtime's controllers are constructed from one place)
 * and the RBAC it declares (permissions.ts, collected by rbac/index.ts); what several controllers
 * share lives at the root of controllers/ or in cache/ and targets/.
 */
function intoInsides(from: string, to: string): boolean {
  const owner = controllerOf(to);
  const face = new RegExp(`^controllers/${owner ?? ""}/(controller|permissions)\\.ts$`);
  return owner !== undefined && owner !== controllerOf(from) && !face.test(to);
}

test("no area imports another controller's insides, only its controller.ts and permissions.ts", () => {
  const made = [...graph].flatMap(([file, targets]) =>
    targets.filter((t) => intoInsides(file, t)).map((t) => `${file} imports ${t}`),
  );
  expect(made).toEqual([]);
  // Every controller's folder is covered, the provisioner's included, with no exception.
  for (const owner of ["resize", "retention", "provisioning"])
    expect([...graph.keys()].filter((f) => controllerOf(f) === owner)).toContain(
      `controllers/${owner}/controller.ts`,
    );
  expect(intoInsides("controllers/provisioning/cleanup.ts", "controllers/resize/execute.ts")).toBe(true);
  expect(intoInsides("config.ts", "controllers/provisioning/cleanup.ts")).toBe(true);
  expect(intoInsides("controllers/resize/observe.ts", "controllers/provisioning/snapshot.ts")).toBe(true);
  expect(intoInsides("observability/domain.ts", "controllers/resize/decide/plan.ts")).toBe(true);
  expect(intoInsides("controllers/provisioning/execute.ts", "controllers/retention/controller.ts")).toBe(
    false,
  );
  expect(intoInsides("config.ts", "controllers/provisioning/controller.ts")).toBe(false);
  expect(intoInsides("rbac/index.ts", "controllers/provisioning/permissions.ts")).toBe(false);
  expect(intoInsides("rbac/index.ts", "controllers/resize/permissions.ts")).toBe(false);
  expect(intoInsides("controllers/resize/observe.ts", "controllers/resize/snapshot.ts")).toBe(false);
  expect(intoInsides("controllers/retention/controller.ts", "controllers/events.ts")).toBe(false);
});

/**
 * The resize decision's pure core: the files that decide (controllers/resize/decide/) see the target
 * only through the neutral views of targets/kind.ts and targets/view.ts. They import no kind module,
 * not even through another file, and name no kind: a kind's words come from its module (targets/<kind>.ts)
 * through the snapshot. The words checked, case-insensitively, in code and comments alike: Karpenter,
 * NodePool, NodeClaim (Karpenter's), Deployment, ReplicaSet, StatefulSet (apps/v1), MachineDeployment,
 * MachineSet, MachinePool, "Cluster API" and cluster.x-k8s.io (Cluster API's). A release's Removal says
 * in neutral words what it deletes (targets/instances/view.ts).
 */
const PURE_CORE = /^controllers\/resize\/decide\//;
const KIND_MODULE = /^targets\/(index|apps|karpenter|cluster-api|scale|pods)\.ts$|^targets\/karpenter\//;
const KIND_WORDS =
  /karpenter|nodepool|nodeclaim|deployment|replicaset|statefulset|machinedeployment|machineset|machinepool|cluster api|cluster\.x-k8s\.io/i;

/** Every src file `file` imports, directly or through others. */
function reachable(file: string): Set<string> {
  const seen = new Set<string>();
  const stack = [...(graph.get(file) ?? [])];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(graph.get(next) ?? []));
  }
  return seen;
}

test("the decision's pure core imports no target-kind module and names no kind", () => {
  const core = [...graph.keys()].filter((f) => PURE_CORE.test(f));
  expect(core.length).toBeGreaterThan(10);
  const imports = core.flatMap((f) =>
    [...reachable(f)].filter((t) => KIND_MODULE.test(t)).map((t) => `${f} reaches ${t}`),
  );
  expect(imports).toEqual([]);
  const naming = core.flatMap((f) => {
    const lines = readFileSync(path.join(SRC, f), "utf8").split("\n");
    return lines.flatMap((line, i) => (KIND_WORDS.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : []));
  });
  expect(naming).toEqual([]);
  // The checks bite: the kind modules name their kinds, and the core's files are in the graph.
  for (const module of ["targets/karpenter.ts", "targets/apps.ts", "targets/cluster-api.ts"])
    expect(KIND_WORDS.test(readFileSync(path.join(SRC, module), "utf8"))).toBe(true);
  expect(core).toContain("controllers/resize/decide/attempt.ts");
  expect(reachable("controllers/resize/observe.ts")).toContain("targets/karpenter.ts");
});

test("the forbidden imports are the ones once made, and the group queue stays open to the dashboard", () => {
  const once = [
    ["plugin/main.ts", "dashboard/views.ts"],
    ["plugin/main.ts", "dashboard/event-view.ts"],
    ["observability/domain.ts", "dashboard/queue-answer.ts"],
    ["operations/controller.ts", "controllers/resize/observe.ts"],
    ["operations/controller.ts", "cache/informers.ts"],
    ["dashboard/queue-answer.ts", "controllers/resize/observe.ts"],
  ];
  for (const [from = "", to = ""] of once)
    expect([from, to, forbidden(from, to)]).toEqual([from, to, expect.any(String)]);
  expect(forbidden("dashboard/api.ts", "cache/group-queue.ts")).toBeUndefined();
  expect(forbidden("controllers/provisioning/observe.ts", "cache/group-queue.ts")).toBeUndefined();
});

test("the checks bite: a cycle and an upward import are found", () => {
  const bad = new Map([
    ["a.ts", ["b.ts"]],
    ["b.ts", ["a.ts"]],
  ]);
  expect(cycles(bad)).toEqual([["a.ts", "b.ts"]]);
  expect(layerOf("api/names.ts")).toBeLessThan(layerOf("controllers/resize/decide/index.ts"));
  expect(layerOf("api/kinds.ts")).toBeGreaterThan(layerOf("runtime/resource-kind.ts"));
  expect(layerOf("api/kinds.ts")).toBeLessThan(layerOf("cache/informers.ts"));
});

/** The packages each file of src/ imports. */
function packageImports(file: string): string[] {
  const text = readFileSync(path.join(SRC, file), "utf8");
  return [...text.matchAll(/(?:import|export)\s[^;]*?from\s+["']([^."'][^"']*)["']/g)].map((m) => m[1] ?? "");
}

test("one HTTP stack: only the http layer makes the Fastify instance, and no other framework is imported", () => {
  const files = [...graph.keys()];
  const makers = files.filter((f) => /import\s+Fastify\b/.test(readFileSync(path.join(SRC, f), "utf8")));
  expect(makers).toEqual(["rest/app.ts"]);
  expect(LAYERS.find((l) => l.name === "http")?.files.test("rest/app.ts")).toBe(true);
  const foreign = files.flatMap((f) =>
    packageImports(f)
      .filter((p) => /^(express|@auth\/express|body-parser|router|koa|hono)(\/|$)/.test(p))
      .map((p) => `${f} imports ${p}`),
  );
  expect(foreign).toEqual([]);
});
