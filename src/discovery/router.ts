// The discovery service under /discovery/v1: `apis.list` (`GET /apis`), the compute REST description
// (`GET /apis/compute/v1/rest`), its human-readable page and the icons. Public (no authentication),
// cacheable (strong ETag over the exact bytes sent, If-None-Match answered with 304).
//
// rootUrl rule: `--public-url` when configured; otherwise the request's own origin, but only when
// `--trust-proxy` is set (then the app takes scheme and host from X-Forwarded-Proto/-Host of trusted
// proxies only); otherwise the default public URL (http://localhost:PORT), the same base as the self
// links, so an untrusted Host header can never steer clients of a cached document elsewhere.
import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import type { Route } from "../rest/route.js";
import { SCOPE_DESCRIPTIONS } from "../rest/routes.js";
import { addRoutes, type HttpRoute } from "../rest/http-route.js";
import { asJson, readSystemParameters } from "../rest/json-answer.js";
import { COMMON_PARAMETERS, invalidParameter, SYSTEM_PARAMETER_NAMES } from "../rest/system-parameters.js";
import { directoryList, DOC_PATH, REST_PATH, restDescription } from "./document.js";
import type { DiscoveryEndpoint, RestDescription } from "./format.js";
import { icon } from "./icons.js";
import { documentationPage } from "./page.js";

/** A location-based endpoint from `--discovery-endpoints`. */
export interface EndpointSetting {
  readonly location: string;
  readonly url: string;
}

export interface DiscoveryOptions {
  readonly routes: readonly Route[];
  /** `--public-url`, when it was configured. */
  readonly publicUrl?: string;
  /** The base used without `--public-url` when no proxy is trusted. */
  readonly defaultUrl: string;
  /** Whether `--trust-proxy` is set, i.e. forwarded headers may name the origin. */
  readonly trustProxy: boolean;
  readonly endpoints: readonly EndpointSetting[];
}

const withSlash = (url: string) => (url.endsWith("/") ? url : `${url}/`);
/** Documents per rootUrl; bounded because with a trusted proxy the host comes from a header. */
const CACHE_SIZE = 16;

function checkQuery(query: Readonly<Record<string, unknown>>, allowed: readonly string[]): void {
  for (const [name, value] of Object.entries(query)) {
    if (!SYSTEM_PARAMETER_NAMES.has(name) && !allowed.includes(name))
      throw invalidParameter(name, "unknown parameter");
    if (typeof value !== "string") throw invalidParameter(name, "given more than once");
  }
}

/**
 * If-None-Match (RFC 9110 §13.1.2, weak comparison). A request's `Cache-Control: no-cache`, which
 * fetch() adds to every conditional request, is addressed to caches: an origin server answers the
 * condition regardless.
 */
function notModified(header: string | undefined, etag: string): boolean {
  return (header ?? "")
    .split(",")
    .map((tag) => tag.trim().replace(/^W\//, ""))
    .some((tag) => tag === "*" || tag === etag);
}

/** Adds `names` to the answer's Vary header. */
function vary(reply: FastifyReply, ...names: string[]): void {
  const had = reply.getHeader("vary");
  const list = typeof had === "string" && had !== "" ? had.split(/\s*,\s*/) : [];
  for (const name of names) if (!list.some((n) => n.toLowerCase() === name.toLowerCase())) list.push(name);
  void reply.header("Vary", list.join(", "));
}

/**
 * An onSend hook: a successful answer gets a strong ETag over the exact bytes sent, or is a 304 when
 * the client already has them. Errors are neither tagged nor cached.
 */
function cacheable(
  req: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: HookHandlerDoneFunction & ((err: Error | null, value?: unknown) => void),
): void {
  if (reply.statusCode !== 200 || (typeof payload !== "string" && !Buffer.isBuffer(payload))) {
    done(null, payload);
    return;
  }
  const etag = `"${createHash("sha256").update(payload).digest("base64url").slice(0, 27)}"`;
  void reply.header("ETag", etag).header("Cache-Control", "public, max-age=300");
  if (!notModified(req.headers["if-none-match"], etag)) {
    done(null, payload);
    return;
  }
  void reply.code(304);
  done(null, null);
}

/** The discovery service's routes under `prefix` (e.g. `/discovery/v1`). */
export function discoveryRoutes(app: FastifyInstance, prefix: string, options: DiscoveryOptions): void {
  const documents = new Map<string, RestDescription>();
  const endpoints: DiscoveryEndpoint[] = options.endpoints.map((e) => ({
    endpointUrl: withSlash(e.url),
    location: e.location,
    description: `The resize-operator installation serving location ${e.location}.`,
    deprecated: false,
  }));
  const describe = (rootUrl: string): RestDescription => {
    let doc = documents.get(rootUrl);
    if (!doc) {
      doc = restDescription(options.routes, {
        rootUrl,
        endpoints,
        scopes: SCOPE_DESCRIPTIONS,
        parameters: COMMON_PARAMETERS,
      });
      if (documents.size >= CACHE_SIZE) documents.delete(documents.keys().next().value ?? "");
      documents.set(rootUrl, doc);
    }
    return doc;
  };
  const fixedUrl = options.publicUrl ?? (options.trustProxy ? undefined : options.defaultUrl);
  // Generated once up front so a broken route table fails at start-up, not on the first request.
  describe(withSlash(fixedUrl ?? options.defaultUrl));
  const rootUrlOf = (req: FastifyRequest, reply: FastifyReply): string => {
    if (fixedUrl !== undefined) return withSlash(fixedUrl);
    vary(reply, "Host", "X-Forwarded-Host", "X-Forwarded-Proto");
    return `${req.protocol}://${req.host}/`;
  };

  const query = (req: FastifyRequest) => req.query as Readonly<Record<string, unknown>>;

  const rows: HttpRoute[] = [
    {
      method: "GET",
      url: `${prefix}/apis`,
      handler: (req, reply) => {
        checkQuery(query(req), ["name", "preferred"]);
        const { name, preferred } = query(req) as Record<string, string | undefined>;
        if (preferred !== undefined && preferred !== "true" && preferred !== "false")
          throw invalidParameter("preferred", "expected true or false");
        const list = directoryList(describe(rootUrlOf(req, reply)), {
          ...(name !== undefined && { name }),
          preferred: preferred === "true",
        });
        void asJson(reply);
        return list;
      },
    },
    {
      method: "GET",
      url: `${prefix}/${REST_PATH}`,
      handler: (req, reply) => {
        checkQuery(query(req), []);
        const document = describe(rootUrlOf(req, reply));
        void asJson(reply);
        return document;
      },
    },
    {
      method: "GET",
      url: `${prefix}/${DOC_PATH}`,
      handler: (req, reply) => {
        const page = documentationPage(describe(rootUrlOf(req, reply)));
        void reply.type("text/html; charset=utf-8");
        return page;
      },
    },
    ...[16, 32].map((size): HttpRoute => {
      const png = icon(size);
      return {
        method: "GET",
        url: `${prefix}/icons/x${size}.png`,
        handler: (_req, reply) => {
          void reply.type("image/png");
          return png;
        },
      };
    }),
  ];
  void app.register((scope, _options, done) => {
    scope.addHook("preValidation", readSystemParameters);
    scope.addHook("onSend", cacheable);
    addRoutes(scope, rows);
    done();
  });
}
