// One full garbage collection, asked for once the caches have synced. Listing a large collection
// allocates several times the cache's size in a few seconds (pages of JSON, their parse, the decoded
// copies), and V8 grows its heap to match; its memory reducer, which would give the pages back when the
// process goes idle, does not start while watches and lease renewals keep allocating. Without this the
// process keeps the first list's high-water mark for good (bench/memory.ts measures both figures).
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

type Gc = (options?: { type?: "major"; execution?: "sync"; flavor?: "regular" | "last-resort" }) => void;
let gc: Gc | null | undefined;

/** V8's `gc()`: the one of `--expose-gc` when the process has it, else one exposed on first use. */
function exposedGc(): Gc | null {
  const own: unknown = (globalThis as { gc?: unknown }).gc;
  if (typeof own === "function") return own as Gc;
  try {
    // A context created after the flag is set gets `gc`, for the whole isolate.
    setFlagsFromString("--expose-gc");
    const fn: unknown = runInNewContext("gc");
    return typeof fn === "function" ? (fn as Gc) : null;
  } catch {
    return null;
  }
}

/** Runs a full garbage collection; false when this runtime offers none (nothing happened). */
export function collectGarbage(): boolean {
  if (gc === undefined) gc = exposedGc();
  if (!gc) return false;
  gc({ type: "major", execution: "sync", flavor: "last-resort" });
  return true;
}
