// Jest setup (integration project, setupFilesAfterEnv): every response a REST integration test
// receives under /compute/v1/ is validated against Google's official compute v1 document: 2xx JSON
// bodies against the response schema of the official method (matched by flatPath and HTTP method),
// others against Google's error envelope. A test that received a non-conforming body fails in
// afterEach with the method, path and ajv errors, even if its own assertions passed.
//
// Two transports are covered: global fetch (test/support/rest.ts `call`) and node:http, which the
// official Node client uses (gaxios takes node-fetch outside browsers, and node-fetch calls
// `http.request`), as does test/support/raw-http.ts.
import http from "node:http";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { officialComputeDocument } from "./compute-oracle.js";
import { OfficialValidator } from "./official-schemas.js";

/** Test files whose responses are checked (paths relative to the repository). */
const CHECKED = ["test/integration/rest/"];

const testPath = expect.getState().testPath ?? "";
const enabled = CHECKED.some((dir) => testPath.replaceAll("\\", "/").includes(`/${dir}`));

if (enabled) install();

function install(): void {
  const validator = new OfficialValidator(officialComputeDocument());
  const violations: string[] = [];
  const pending = new Set<Promise<void>>();

  const record = (method: string, url: URL, status: number, contentType: string, text: string) => {
    if (!validator.covers(url.pathname) || text === "") return;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      violations.push(
        `${method} ${url.pathname} → ${status}: not JSON (${contentType}): ${text.slice(0, 120)}`,
      );
      return;
    }
    const violation = validator.check(method, url.pathname, status, body);
    if (violation)
      violations.push(
        `${method} ${url.pathname}${url.search} → ${status} (${violation.method}): ${violation.errors}`,
      );
  };
  const track = (work: Promise<void>) => {
    pending.add(work);
    void work.finally(() => pending.delete(work));
  };

  const originalFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const res = await originalFetch(input, init);
    const request = input instanceof Request ? input : undefined;
    const method = init?.method ?? request?.method ?? "GET";
    const asked = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const url = new URL(res.url || asked);
    // A clone, so the test reads the body as if nothing were watching; fetch has decoded it already.
    const copy = res.clone();
    track(
      copy.text().then(
        (text) => {
          record(method, url, res.status, res.headers.get("content-type") ?? "", text);
        },
        () => undefined, // aborted by the test: nothing to check
      ),
    );
    return res;
  };

  const originalRequest = http.request;
  const tapped = (...args: Parameters<typeof http.request>): http.ClientRequest => {
    const req = originalRequest(...args);
    req.once("response", (res) => {
      const chunks: Buffer[] = [];
      track(
        new Promise<void>((resolve) => {
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.once("end", () => {
            const url = new URL(req.path, `http://${req.host}`);
            const text = decode(Buffer.concat(chunks), res.headers["content-encoding"]);
            record(req.method, url, res.statusCode ?? 0, res.headers["content-type"] ?? "", text);
            resolve();
          });
          res.once("close", resolve);
          res.once("error", () => {
            resolve();
          });
        }),
      );
    });
    return req;
  };
  http.request = tapped as typeof http.request;

  afterEach(async () => {
    await Promise.all(pending);
    const found = violations.splice(0);
    if (found.length > 0)
      throw new Error(
        `responses that do not match the official compute v1 document:\n${found.map((v) => `  ${v}`).join("\n")}`,
      );
  });
  // node:http is one module for the whole worker: put it back for the next test file.
  afterAll(() => {
    http.request = originalRequest;
    globalThis.fetch = originalFetch;
  });
}

/** node:http hands over the bytes as sent; fetch decodes, so only this path needs it. */
function decode(bytes: Buffer, encoding: string | undefined): string {
  switch (encoding?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return gunzipSync(bytes).toString();
    case "deflate":
      return inflateSync(bytes).toString();
    case "br":
      return brotliDecompressSync(bytes).toString();
    default:
      return bytes.toString();
  }
}
