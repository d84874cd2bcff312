// Batch requests as Google APIs take them: a `multipart/mixed` body whose parts are
// `application/http` messages, each an embedded HTTP request of this API. Every part runs through the
// whole HTTP app (authentication, parameters, RBAC, handlers, errors), as if it had been sent alone,
// and the answers come back as `multipart/mixed` in the same order with `Content-ID: response-<id>`.
// The outer request's headers other than Content-* apply to every part unless the part sets them
// (so one Authorization header can serve the whole batch), as Google documents.
import { randomBytes } from "node:crypto";
import {
  createServer,
  request,
  STATUS_CODES,
  type IncomingHttpHeaders,
  type RequestListener,
} from "node:http";
import { duplexPair } from "node:stream";
import type { FastifyReply, FastifyRequest } from "fastify";
import { credentialsOf, MAX_CREDENTIALS_PER_BATCH, PartBudget } from "./batch-budget.js";
import { InvalidError, RestError } from "./errors.js";

export interface EmbeddedRequest {
  readonly contentId?: string;
  readonly method: string;
  /** Path and query. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface EmbeddedResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export type Dispatch = (req: EmbeddedRequest, signal: AbortSignal) => Promise<EmbeddedResponse>;

/** Google's limit on calls per batch. */
const MAX_PARTS = 1000;
/** Parts run concurrently, this many at a time, so a large batch cannot flood the Kubernetes API. */
const CONCURRENCY = 8;

/** Headers that describe the outer message or connection and never pass to a part. */
const NOT_INHERITED =
  /^(content-.*|host|connection|keep-alive|transfer-encoding|te|trailer|upgrade|expect)$/i;

function batchError(message: string): InvalidError {
  return new InvalidError(`Invalid batch request: ${message}`);
}

/** Splits `Name: value` lines up to the first empty line; returns the headers and what follows. */
function headerBlock(text: string, what: string): { headers: Record<string, string>; rest: string } {
  const headers: Record<string, string> = {};
  const end = /\r?\n\r?\n/.exec(text);
  const block = end ? text.slice(0, end.index) : text;
  for (const line of block.split(/\r?\n/)) {
    if (line === "") continue;
    const colon = line.indexOf(":");
    if (colon <= 0) throw batchError(`${what}: malformed header line '${line}'`);
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, rest: end ? text.slice(end.index + end[0].length) : "" };
}

function boundaryOf(contentType: string | undefined): string {
  const match = /^\s*multipart\/mixed\s*;(?:.*;)?\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(
    contentType ?? "",
  );
  const boundary = match?.[1] ?? match?.[2];
  if (boundary === undefined) throw batchError("Content-Type must be multipart/mixed with a boundary");
  return boundary;
}

/** The parts of a multipart/mixed body (RFC 2046): what lies between the delimiter lines. */
function splitParts(text: string, boundary: string): string[] {
  const delimiter = `--${boundary}`;
  const parts: string[] = [];
  const first = text.startsWith(delimiter) ? 0 : text.indexOf(`\n${delimiter}`) + 1;
  if (first === 0 && !text.startsWith(delimiter)) throw batchError("no part delimiter found");
  let at = first;
  for (;;) {
    const after = at + delimiter.length;
    if (text.startsWith("--", after)) return parts;
    const lineEnd = text.indexOf("\n", after);
    const next = lineEnd < 0 ? -1 : text.indexOf(`\n${delimiter}`, lineEnd);
    if (next < 0) throw batchError("missing closing delimiter");
    // The line break before a delimiter belongs to the delimiter.
    const content = text.slice(lineEnd + 1, next);
    parts.push(content.endsWith("\r") ? content.slice(0, -1) : content);
    at = next + 1;
  }
}

/** Parses a batch body into its embedded requests. */
export function parseBatch(contentType: string | undefined, body: string): EmbeddedRequest[] {
  const parts = splitParts(body, boundaryOf(contentType));
  if (parts.length === 0) throw batchError("the batch has no parts");
  if (parts.length > MAX_PARTS) throw batchError(`at most ${MAX_PARTS} calls per batch`);
  return parts.map((part, index) => {
    const what = `part ${index + 1}`;
    const mime = headerBlock(part, what);
    if (!/^application\/http\b/i.test(mime.headers["content-type"] ?? ""))
      throw batchError(`${what}: Content-Type must be application/http`);
    const lineEnd = mime.rest.search(/\r?\n|$/);
    const requestLine = mime.rest.slice(0, lineEnd).trim();
    const match = /^([A-Z]+) (\S+)(?: HTTP\/1\.[01])?$/.exec(requestLine);
    if (!match) throw batchError(`${what}: expected a request line such as 'GET /compute/v1/…'`);
    const embedded = headerBlock(mime.rest.slice(lineEnd).replace(/^\r?\n/, ""), what);
    const target = match[2] ?? "";
    // Clients may write the absolute URL; only its path and query matter here.
    const path = /^https?:\/\//i.test(target) ? target.replace(/^https?:\/\/[^/]*/i, "") : target;
    const contentId = mime.headers["content-id"];
    return {
      ...(contentId !== undefined && { contentId }),
      method: match[1] ?? "",
      path,
      headers: embedded.headers,
      body: embedded.rest.trim() === "" ? "" : embedded.rest,
    };
  });
}

/** `<item1>` → `<response-item1>`, `item1` → `response-item1`. */
function responseId(contentId: string): string {
  const bracketed = /^<(.*)>$/.exec(contentId);
  return bracketed ? `<response-${bracketed[1] ?? ""}>` : `response-${contentId}`;
}

/** The multipart/mixed answer to a batch. */
export function formatBatch(
  boundary: string,
  requests: readonly EmbeddedRequest[],
  responses: readonly EmbeddedResponse[],
): string {
  const parts = responses.map((res, i) => {
    const id = requests[i]?.contentId;
    const headers = Object.entries(res.headers)
      .filter(([name]) => !/^(content-length|connection|keep-alive|transfer-encoding|date)$/i.test(name))
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("");
    return (
      `--${boundary}\r\nContent-Type: application/http\r\n` +
      (id === undefined ? "" : `Content-ID: ${responseId(id)}\r\n`) +
      `\r\nHTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? ""}\r\n${headers}` +
      `Content-Length: ${Buffer.byteLength(res.body)}\r\n\r\n${res.body}\r\n`
    );
  });
  return `${parts.join("")}--${boundary}--\r\n`;
}

/**
 * Runs embedded requests through `handler` in this process: each gets its own in-memory connection to
 * an HTTP server that never listens, so Node parses and answers it exactly as a network request.
 */
export function inProcessDispatch(handler: RequestListener): Dispatch {
  const server = createServer(handler);
  return (req, signal) =>
    new Promise((resolve, reject) => {
      const [client, serverSide] = duplexPair();
      server.emit("connection", serverSide);
      const outgoing = request(
        {
          method: req.method,
          path: req.path,
          headers: { ...req.headers, "content-length": String(Buffer.byteLength(req.body)) },
          createConnection: () => client,
          signal,
        },
        (incoming) => {
          let body = "";
          incoming.setEncoding("utf8");
          incoming.on("data", (chunk: string) => (body += chunk));
          incoming.on("error", reject);
          incoming.on("end", () => {
            resolve({ status: incoming.statusCode ?? 500, headers: flatten(incoming.headers), body });
          });
        },
      );
      outgoing.on("error", reject);
      outgoing.end(req.body);
    });
}

function flatten(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).flatMap(([k, v]) =>
      v === undefined ? [] : [[k, Array.isArray(v) ? v.join(", ") : v] as const],
    ),
  );
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results keep the input order. */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * The batch endpoint. `servicePrefix` (e.g. `/compute/v1/`) is the only place parts may call: a batch
 * carries calls of this API, never of the discovery service or of another batch.
 */
export function batchHandler(dispatch: Dispatch, servicePrefix: string, now: () => number = Date.now) {
  // Two full batches at once, then one every 5 seconds, per caller address.
  const budget = new PartBudget({
    capacity: 2 * MAX_PARTS,
    refillPerSecond: MAX_PARTS / 5,
    now,
    maxCallers: 10_000,
  });
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const raw: unknown = req.body;
    const text = Buffer.isBuffer(raw) ? raw.toString("utf8") : "";
    const requests = parseBatch(req.headers["content-type"], text);
    requests.forEach((part, i) => {
      if (!part.path.startsWith(servicePrefix))
        throw batchError(`part ${i + 1}: only calls under ${servicePrefix} can be batched`);
    });
    const inherited = Object.fromEntries(
      Object.entries(flatten(req.headers)).filter(([name]) => !NOT_INHERITED.test(name)),
    );
    // Both before any part is authenticated (batch-budget.ts).
    if (credentialsOf(requests, inherited).size > MAX_CREDENTIALS_PER_BATCH)
      throw batchError(`a batch may carry at most ${MAX_CREDENTIALS_PER_BATCH} distinct credentials`);
    if (!budget.take(req.ip, requests.length))
      throw new RestError(
        429,
        "rateLimitExceeded",
        "Too many batched calls from this client; try again later.",
      );
    const aborted = new AbortController();
    reply.raw.on("close", () => {
      aborted.abort();
    });
    const responses = await mapLimited(requests, CONCURRENCY, (part) =>
      dispatch({ ...part, headers: { ...inherited, ...part.headers } }, aborted.signal),
    );
    const boundary = `batch_${randomBytes(12).toString("base64url")}`;
    await reply
      .code(200)
      .type(`multipart/mixed; boundary=${boundary}; charset=utf-8`)
      .send(formatBatch(boundary, requests, responses));
  };
}
