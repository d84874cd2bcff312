// The Node.js versions the bins run on. This file imports nothing on purpose: the bins load it before
// anything else, so that on an older Node they can say what is wrong instead of crashing inside a
// dependency (on Node 20, undici — loaded by the Kubernetes client — throws a TypeError at import time).

/** The oldest Node.js major the project supports; package.json's `engines.node` says the same. */
export const MINIMUM_NODE_MAJOR = 22;

/** The error to print when `version` (as `process.version`) is too old, or undefined when it is fine. */
export function unsupportedNode(version: string): string | undefined {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  // An unparseable version (a fork, a future format) is given the benefit of the doubt.
  if (!Number.isInteger(major) || major >= MINIMUM_NODE_MAJOR) return undefined;
  return (
    `resize-operator needs Node.js ${MINIMUM_NODE_MAJOR} or newer (this is ${version}): ` +
    `install Node.js ${MINIMUM_NODE_MAJOR} or 24 LTS, or in a checkout put the Node that npm ci ` +
    `installed first on PATH: export PATH="$PWD/node_modules/.bin:$PATH"`
  );
}

/** Exits with status 1 and the error on stderr when this Node.js is too old. */
export function exitOnUnsupportedNode(): void {
  const message = unsupportedNode(process.version);
  if (message === undefined) return;
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
