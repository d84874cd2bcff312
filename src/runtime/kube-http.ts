// The transport under the typed client (http-kube-client.ts) and the informers' watches: HTTP to the
// Kubernetes API with the KubeConfig's TLS and credentials, per-request deadlines (lease renewals must
// not hang past the renew deadline), Status bodies of failed requests turned into ApiErrors, and
// streaming watches whose end the caller handles itself. Callers use KubeClient, not `request`.
import http from "node:http";
import https from "node:https";
import { createInterface } from "node:readline";
import type { KubeConfig } from "@kubernetes/client-node";
import { statusError } from "./api-errors.js";

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

/** The request took longer than allowed, or a stream went silent for too long. */
export class TimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TimeoutError";
  }
}

/** The JSON value of `text`, or undefined when it is empty or not JSON (e.g. a proxy's HTML error page). */
function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Whether two pieces of TLS material (strings, Buffers, lists of them) are the same bytes. */
export function sameTls(a: unknown, b: unknown): boolean {
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, i) => sameTls(item, b[i]));
  return a === b;
}

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** Content type of the body (default application/json; e.g. application/merge-patch+json for PATCH). */
  contentType?: string;
  /** Whole-request deadline in ms (default 30 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface StreamOptions {
  query?: Query;
  /** The stream is given up (TimeoutError) when no byte arrives for this long. */
  idleTimeoutMs: number;
  signal?: AbortSignal;
}

export class KubeHttp {
  /**
   * One keep-alive agent for all calls: the client library makes a new agent (a new TLS handshake)
   * per call otherwise, which dominated the operator's CPU. Rebuilt when the TLS material changes.
   */
  private agent: https.Agent | undefined;
  /** The TLS material the agent was made with, compared by content on every call. */
  private agentTls: readonly unknown[] = [];

  constructor(private readonly kc: KubeConfig) {}

  private sharedAgent(opts: https.RequestOptions): https.Agent {
    // The client library decodes fresh Buffers on every call, so identity says nothing; compared by
    // content (a memcmp), not serialised: JSON of a Buffer is an array of its bytes, and making it for
    // every API call cost more CPU than the rest of the call's preparation.
    const tls = [opts.ca, opts.cert, opts.key, opts.servername, opts.rejectUnauthorized];
    if (!this.agent || !sameTls(tls, this.agentTls)) {
      this.agent?.destroy();
      this.agent = new https.Agent({
        keepAlive: true,
        ca: opts.ca,
        cert: opts.cert,
        key: opts.key,
        servername: opts.servername,
        ...(opts.rejectUnauthorized !== undefined && { rejectUnauthorized: opts.rejectUnauthorized }),
      });
      this.agentTls = tls;
    }
    return this.agent;
  }

  private async prepare(
    method: string,
    path: string,
    query: Query | undefined,
  ): Promise<{ url: URL; opts: https.RequestOptions }> {
    const cluster = this.kc.getCurrentCluster();
    if (!cluster) throw new Error("the kubeconfig has no current cluster");
    const url = new URL(cluster.server.replace(/\/+$/, "") + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const opts: https.RequestOptions = { method, headers: { Accept: "application/json" } };
    // Adds TLS material, the credentials header and an agent; credentials are never logged.
    await this.kc.applyToHTTPSOptions(opts);
    if (url.protocol === "https:") opts.agent = this.sharedAgent(opts);
    return { url, opts };
  }

  private send(
    url: URL,
    opts: https.RequestOptions,
    body: string | undefined,
    contentType = "application/json",
  ): http.ClientRequest {
    const req = url.protocol === "http:" ? http.request(url, opts) : https.request(url, opts);
    if (body !== undefined) {
      req.setHeader("Content-Type", contentType);
      req.setHeader("Content-Length", Buffer.byteLength(body));
      req.end(body);
    } else {
      req.end();
    }
    return req;
  }

  /** One JSON request; resolves with the parsed body on 2xx, rejects with ApiError otherwise. */
  async request(method: string, path: string, options: RequestOptions = {}): Promise<unknown> {
    const { url, opts } = await this.prepare(method, path, options.query);
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const timeoutMs = options.timeoutMs ?? 30_000;
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (err: Error | undefined, value?: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        if (err) reject(err);
        else resolve(value);
      };
      const req = this.send(url, opts, payload, options.contentType);
      const onAbort = (): void => {
        req.destroy();
        finish(new Error(`${method} ${path} aborted`));
      };
      const timer = setTimeout(() => {
        req.destroy();
        finish(new TimeoutError(`${method} ${path} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      if (options.signal?.aborted) onAbort();
      options.signal?.addEventListener("abort", onAbort, { once: true });
      req.on("error", (err) => {
        finish(err);
      });
      req.on("response", (res) => {
        // Decoded chunk by chunk into a string on the V8 heap, not concatenated into one Buffer: a list
        // page is about a megabyte, and a freed buffer of that size stays in the C heap (glibc keeps
        // it for reuse), 80 MiB of resident memory after listing 100,000 objects (bench/memory.ts).
        res.setEncoding("utf8");
        let text = "";
        res.on("data", (c: string) => {
          text += c;
        });
        res.on("error", (err) => {
          finish(err);
        });
        res.on("end", () => {
          const parsed = parseJson(text);
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) finish(undefined, parsed);
          else finish(statusError(status, parsed));
        });
      });
    });
  }

  /**
   * Opens a streaming GET (a watch) and calls `onLine` with every parsed JSON line. Resolves when the
   * server ends the stream or `signal` aborts; rejects on a non-200 answer (ApiError), a network error,
   * or silence longer than `idleTimeoutMs` (TimeoutError).
   */
  async stream(path: string, options: StreamOptions, onLine: (value: unknown) => void): Promise<void> {
    const { url, opts } = await this.prepare("GET", path, options.query);
    return new Promise((resolve, reject) => {
      let settled = false;
      let idle: NodeJS.Timeout | undefined;
      const req = this.send(url, opts, undefined);
      const finish = (err: Error | undefined): void => {
        if (settled) return;
        settled = true;
        clearTimeout(idle);
        options.signal?.removeEventListener("abort", onAbort);
        req.destroy();
        if (err) reject(err);
        else resolve();
      };
      const onAbort = (): void => {
        finish(undefined);
      };
      const touch = (): void => {
        clearTimeout(idle);
        idle = setTimeout(() => {
          finish(new TimeoutError(`watch ${path} silent for ${options.idleTimeoutMs} ms`));
        }, options.idleTimeoutMs);
      };
      if (options.signal?.aborted) {
        onAbort();
        return;
      }
      options.signal?.addEventListener("abort", onAbort, { once: true });
      touch();
      req.on("error", (err) => {
        finish(err);
      });
      req.on("response", (res) => {
        const status = res.statusCode ?? 0;
        if (status !== 200) {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            finish(statusError(status, parseJson(Buffer.concat(chunks).toString("utf8"))));
          });
          res.on("error", (err) => {
            finish(err);
          });
          return;
        }
        res.on("data", touch);
        res.on("error", (err) => {
          finish(err);
        });
        // "aborted"/"close" without "end" means the connection broke mid-stream.
        res.on("close", () => {
          finish(res.complete ? undefined : new Error(`watch ${path}: connection closed`));
        });
        const lines = createInterface({ input: res, crlfDelay: Infinity });
        // readline re-emits the response's errors (e.g. "aborted" when we destroy the request on purpose);
        // unhandled, they would crash the process.
        lines.on("error", (err) => {
          finish(err);
        });
        lines.on("line", (line) => {
          if (settled || line.trim() === "") return;
          let value: unknown;
          try {
            value = JSON.parse(line);
          } catch {
            finish(new Error(`watch ${path}: undecodable line`));
            return;
          }
          try {
            onLine(value);
          } catch (err) {
            finish(err instanceof Error ? err : new Error(String(err)));
          }
        });
      });
    });
  }
}
