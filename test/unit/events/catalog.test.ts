import { bookingEvents } from "../../../src/booking/events.js";
import { provisioningEvents } from "../../../src/controllers/provisioning/conditions.js";
import { readFileSync } from "node:fs";
import { catalogTableRows, defineEventCatalog, type EventDefinition } from "../../../src/events/catalog.js";
import { resizeEvents } from "../../../src/controllers/events.js";
import { genericEvents } from "../../../src/events/generic.js";

const ok: EventDefinition = {
  type: "Warning",
  reason: "ProvisioningFailed",
  action: "Provision",
  when: "always",
};

describe("defineEventCatalog", () => {
  test("returns the entries, frozen, with their literal types", () => {
    const catalog = defineEventCatalog({
      Failed: ok,
      Done: { ...ok, type: "Normal", reason: "Provisioned" },
    });
    expect(catalog.Failed.reason).toBe("ProvisioningFailed");
    expect(Object.isFrozen(catalog)).toBe(true);
    expect(Object.isFrozen(catalog.Done)).toBe(true);
  });

  test.each<[string, Partial<EventDefinition>, RegExp]>([
    ["an empty reason", { reason: "" }, /X\.reason must be UpperCamelCase/],
    ["a lower-case reason", { reason: "provisioningFailed" }, /X\.reason must be UpperCamelCase/],
    ["a reason with spaces", { reason: "Provisioning Failed" }, /X\.reason must be UpperCamelCase/],
    ["a 129-byte reason", { reason: `R${"r".repeat(128)}` }, /X\.reason must be at most 128 bytes/],
    ["an action with punctuation", { action: "Provision!" }, /X\.action must be UpperCamelCase/],
    ["a 129-byte action", { action: `A${"a".repeat(128)}` }, /X\.action must be at most 128 bytes/],
    ["an unknown type", { type: "Error" as EventDefinition["type"] }, /X\.type must be Normal or Warning/],
    ["an empty when", { when: " " }, /X\.when must say when/],
  ])("rejects %s", (_name, change, problem) => {
    expect(() => defineEventCatalog({ X: { ...ok, ...change } })).toThrow(problem);
  });

  test("accepts 128-byte reasons and actions", () => {
    expect(() =>
      defineEventCatalog({ X: { ...ok, reason: `R${"r".repeat(127)}`, action: `A${"a".repeat(127)}` } }),
    ).not.toThrow();
  });

  test("rejects two entries for the same event", () => {
    expect(() => defineEventCatalog({ A: ok, B: { ...ok, when: "also" } })).toThrow(
      /B and A are the same event/,
    );
  });

  test("the same reason under another action or type is a different event", () => {
    expect(() =>
      defineEventCatalog({ A: ok, B: { ...ok, action: "Rollback" }, C: { ...ok, type: "Normal" } }),
    ).not.toThrow();
  });
});

test("catalogue rows are Markdown table rows with escaped pipes", () => {
  const catalog = defineEventCatalog({ X: { ...ok, when: "a | b" } });
  expect(catalogTableRows(catalog)).toEqual(["| `ProvisioningFailed` | `Provision` | Warning | a \\| b |"]);
});

test("docs/events.md has a row for every catalogue entry", () => {
  const normalise = (row: string) => row.replace(/\s+/g, " ").trim();
  const doc = readFileSync(new URL("../../../docs/events.md", import.meta.url), "utf8");
  const rows = new Set(doc.split("\n").map(normalise));
  for (const row of catalogTableRows(genericEvents, resizeEvents, provisioningEvents, bookingEvents))
    expect(rows).toContain(normalise(row));
});
