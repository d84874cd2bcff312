// A raw HTTP/1.1 client for hostile-input and auth tests: the path is sent exactly as given (no URL
// normalisation of `..` or percent-escapes), any header may be set (Host, Cookie, X-Forwarded-*), and
// redirects are never followed. Loopback only.
import http from "node:http";

export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

export function rawRequest(
  port: number,
  method: string,
  path: string,
  options: { headers?: Readonly<Record<string, string | string[]>>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        // Node sends a GET or DELETE body without framing unless told its length.
        headers: {
          ...(options.body !== undefined && { "content-length": String(Buffer.byteLength(options.body)) }),
          ...options.headers,
        },
        agent,
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString(),
          });
        });
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer in 30 s`)));
    req.on("error", reject);
    if (options.body !== undefined) req.end(options.body);
    else req.end();
  });
}

/** Closes the kept-alive sockets (afterAll), so jest can exit. */
export function closeRawAgent(): void {
  agent.destroy();
}

/** The problem with a response that should carry the Google error body, or undefined when it does. */
export function googleErrorProblem(res: RawResponse): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    return `${res.status} without a JSON body: ${res.text.slice(0, 200)}`;
  }
  const error: unknown = (body as { error?: unknown } | null)?.error;
  if (typeof error !== "object" || error === null)
    return `${res.status} without an error object: ${res.text.slice(0, 200)}`;
  const { code, message, errors } = error as Record<string, unknown>;
  if (code !== res.status) return `error.code ${String(code)} differs from the status ${res.status}`;
  if (typeof message !== "string") return "error.message is not a string";
  if (!Array.isArray(errors) || errors.length === 0) return "error.errors is empty";
  for (const item of errors as unknown[]) {
    const { domain, reason, message: text } = (item ?? {}) as Record<string, unknown>;
    if (typeof domain !== "string" || typeof reason !== "string" || typeof text !== "string")
      return `an errors[] item lacks domain/reason/message: ${JSON.stringify(item)}`;
  }
  return undefined;
}
