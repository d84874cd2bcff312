// The update filters: a status write (same generation, no deletion) passes neither; a spec change
// passes both; a deletion and a resync (the same object again) pass generationOrDeletionChanged only.
import { generationChanged, generationOrDeletionChanged } from "../../../src/runtime/predicates.js";

const obj = (generation: number, deletionTimestamp?: string) => ({
  metadata: { generation, ...(deletionTimestamp !== undefined && { deletionTimestamp }) },
});

test.each([
  ["a status write", obj(1), obj(1), false, false],
  ["a spec change", obj(1), obj(2), true, true],
  ["the deletion starting", obj(1), obj(1, "2026-01-01T00:00:00Z"), false, true],
])("%s", (_, before, after, generation, generationOrDeletion) => {
  expect(generationChanged(before, after)).toBe(generation);
  expect(generationOrDeletionChanged(before, after)).toBe(generationOrDeletion);
});

test("a resync, the same object handed again, passes generationOrDeletionChanged only", () => {
  const same = obj(3);
  expect(generationChanged(same, same)).toBe(false);
  expect(generationOrDeletionChanged(same, same)).toBe(true);
});
