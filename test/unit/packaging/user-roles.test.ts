// The user ClusterRoles: `use` (spending a group's capacity) only through admin or a per-group Role,
// nothing outside resize-operator's API group, and the per-group Role in the docs is the declared rule.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { GROUP, USE_VERB } from "../../../src/api/names.js";
import { ruleOf } from "../../../src/rbac/permissions.js";
import { USER_ROLES, useOneGroupRule } from "../../../src/rbac/user-roles.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const rulesOf = (suffix: string) =>
  USER_ROLES.find((r) => r.suffix === suffix)?.permissions.map(ruleOf) ?? [];

test("viewer, requester and admin, aggregated from view up", () => {
  expect(USER_ROLES.map((r) => [r.suffix, r.aggregateTo])).toEqual([
    ["viewer", ["view", "edit", "admin"]],
    ["requester", ["edit", "admin"]],
    ["admin", ["admin"]],
  ]);
});

test("only admin holds use; the viewer only reads; nothing outside the API group", () => {
  const verbs = (suffix: string) => rulesOf(suffix).flatMap((r) => r.verbs);
  expect(verbs("admin")).toContain(USE_VERB);
  expect(verbs("requester")).not.toContain(USE_VERB);
  expect(new Set(verbs("viewer"))).toEqual(new Set(["get", "list", "watch"]));
  for (const role of USER_ROLES)
    for (const rule of role.permissions.map(ruleOf)) {
      expect(rule.apiGroups).toEqual([GROUP]);
      expect(rule.verbs).not.toContain("*");
    }
});

test.each([
  ["docs/install.md", "gpu-workers"],
  ["docs/rest.md", "gpu-workers"],
])("the use-on-one-group Role in %s is the declared rule", (file, group) => {
  const text = readFileSync(path.join(repoRoot, file), "utf8");
  const heredocs = [...text.matchAll(/apply -f - <<'EOF'\n([\s\S]*?)\nEOF\n/g)].map((m) => m[1] ?? "");
  const roles = heredocs
    .flatMap((y) => parseAllDocuments(y).map((d) => d.toJS() as { kind?: string; rules?: unknown[] }))
    .filter((o) => o.kind === "Role");
  expect(roles).toHaveLength(1);
  expect(roles[0]?.rules).toEqual([useOneGroupRule(group)]);
});
