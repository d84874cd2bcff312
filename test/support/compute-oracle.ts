// The oracle: Google's official compute v1 discovery document, as shipped in the Go module
// google.golang.org/api at the version test/goclients/go.mod pins (the one place the version is
// written). Go's module cache is the cache: the 6 MB document is never committed, and after the first
// download `go mod download` answers from the cache without the network.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RestDescription } from "../../src/discovery/format.js";

const MODULE = "google.golang.org/api";
const GO_MOD = new URL("../goclients/go.mod", import.meta.url);
const DOCUMENT = path.join("compute", "v1", "compute-api.json");

/** The version of google.golang.org/api that test/goclients/go.mod requires. */
export function pinnedVersion(goMod: string = readFileSync(GO_MOD, "utf8")): string {
  // Matches both `require google.golang.org/api vX` and a line inside a `require (...)` block.
  const escaped = MODULE.replaceAll(".", "\\.");
  const match = new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\S+)`, "m").exec(goMod);
  if (!match?.[1]) throw new Error(`test/goclients/go.mod does not require ${MODULE}`);
  return match[1];
}

/** Downloads (or finds in Go's module cache) the module and returns its directory. */
function moduleDir(version: string): string {
  let out: string;
  try {
    // Run outside any module so nothing writes a go.sum next to test/goclients/go.mod.
    out = execFileSync("go", ["mod", "download", "-json", `${MODULE}@${version}`], {
      cwd: tmpdir(),
      env: { ...process.env, GOFLAGS: "-mod=mod", GO111MODULE: "on" },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 300_000,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      throw new Error(
        "the `go` command is not on PATH: it is needed to fetch the official compute discovery document " +
          `(${MODULE}@${version}, ${DOCUMENT})`,
        { cause: error },
      );
    const stderr = (error as { stderr?: string }).stderr ?? "";
    throw new Error(`go mod download ${MODULE}@${version} failed: ${stderr || String(error)}`, {
      cause: error,
    });
  }
  const info = JSON.parse(out) as { Dir?: string; Error?: string };
  if (info.Error !== undefined) throw new Error(`go mod download ${MODULE}@${version}: ${info.Error}`);
  if (info.Dir === undefined) throw new Error(`go mod download ${MODULE}@${version} returned no Dir`);
  return info.Dir;
}

let cached: RestDescription | undefined;

/** The official compute v1 discovery document (parsed once per process). */
export function officialComputeDocument(): RestDescription {
  if (cached) return cached;
  const file = path.join(moduleDir(pinnedVersion()), DOCUMENT);
  cached = JSON.parse(readFileSync(file, "utf8")) as RestDescription;
  return cached;
}
