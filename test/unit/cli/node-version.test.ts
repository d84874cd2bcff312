// The bins' Node.js version check (src/node-version.ts): which versions are refused, the message, and
// that it agrees with package.json's `engines`. The bins themselves are run under an old Node by
// test/integration/cli/node-version.test.ts.
import { readFileSync } from "node:fs";
import { MINIMUM_NODE_MAJOR, unsupportedNode } from "../../../src/node-version.js";

test("Node 20 and older are refused with the version in the message", () => {
  expect(unsupportedNode("v20.20.2")).toMatch(
    /^resize-operator needs Node\.js 22 or newer \(this is v20\.20\.2\): install Node\.js 22 or 24 LTS, /,
  );
  for (const old of ["v21.7.3", "v18.20.4", "v16.0.0", "v0.12.18"])
    expect(unsupportedNode(old)).toContain(`(this is ${old})`);
});

test("Node 22 and newer pass, and so does a version that cannot be parsed", () => {
  for (const ok of ["v22.0.0", "v22.12.0", "v24.21.0", "v30.1.0", "nightly", ""])
    expect(unsupportedNode(ok)).toBeUndefined();
});

test("the minimum is the one package.json's engines declares", () => {
  const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
    engines: { node: string };
  };
  expect(pkg.engines.node).toBe(`>=${MINIMUM_NODE_MAJOR}`);
});

test("the check imports nothing, so an old Node loads it before anything it cannot", () => {
  const source = readFileSync(new URL("../../../src/node-version.ts", import.meta.url), "utf8");
  expect(source).not.toMatch(/^\s*(import|export\s.*\sfrom)\s/m);
  expect(source).not.toMatch(/\bimport\(|\brequire\(/);
});

test("each bin imports only the check statically and loads the rest after it", () => {
  for (const bin of ["cli.ts", "kubectl-resize.ts"]) {
    const source = readFileSync(new URL(`../../../src/${bin}`, import.meta.url), "utf8");
    const statics = [...source.matchAll(/^import\s[^;]*from\s+"([^"]+)"/gm)].map((m) => m[1]);
    expect(statics).toEqual(["./node-version.js"]);
    expect(source.indexOf("exitOnUnsupportedNode();")).toBeLessThan(source.indexOf("await import("));
  }
});
