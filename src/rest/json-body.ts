// How the app reads request bodies: JSON (application/json, any parameters) is parsed, an empty one as
// `{}`; a body of any other type is left unread (the route then sees none, and its body schema says
// what is missing) rather than refused with Fastify's 415. Failures are the API's errors: text that
// is not a JSON object or array is a parse error, a charset other than UTF-8 or a compressed body is
// refused, and the size limit (Fastify's bodyLimit, `--max-body-bytes`) answers 413 (errors.ts).
import type { FastifyInstance } from "fastify";
import { InvalidError, ParseError } from "./errors.js";

/** Parses a JSON body strictly: an object or an array at the top, as the API has always required. */
export function parseJsonBody(text: string): unknown {
  // A UTF-8 byte order mark is not part of the text.
  const body = text.startsWith("\ufeff") ? text.slice(1) : text;
  const first = /\S/.exec(body)?.[0];
  if (first === undefined) return {};
  try {
    if (first !== "{" && first !== "[") JSON.parse(`#${body.slice(body.indexOf(first) + 1)}`);
    return JSON.parse(body) as unknown;
  } catch (err) {
    const message = err instanceof Error ? err.message : "invalid JSON";
    throw new ParseError(`Parse error: the request body is not valid JSON (${message}).`);
  }
}

function checkEncoding(charset: string | undefined, encoding: string | string[] | undefined): void {
  if (charset !== undefined && !/^utf-?8$/i.test(charset))
    throw new InvalidError(`unsupported charset "${charset.toUpperCase()}"`);
  const coding = (Array.isArray(encoding) ? encoding.join(",") : (encoding ?? "identity")).toLowerCase();
  if (coding.trim() !== "identity") throw new InvalidError(`unsupported content encoding "${coding}"`);
}

/** Replaces Fastify's body parsers with the API's. */
export function addJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/json(?:\s*;|$)/i, { parseAs: "string" }, (req, text, done) => {
    try {
      const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers["content-type"] ?? "")?.[1];
      checkEncoding(charset, req.headers["content-encoding"]);
      done(null, parseJsonBody(typeof text === "string" ? text : text.toString("utf8")));
    } catch (err) {
      done(err instanceof Error ? err : new ParseError("Parse error."), undefined);
    }
  });
  // Any other type (or none): not read, as a route taking JSON has no use for it.
  app.addContentTypeParser("*", (_req, _payload, done) => {
    done(null, undefined);
  });
}
