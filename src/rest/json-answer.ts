// The standard parameters the Fastify way: a call's `alt`/`prettyPrint`/`fields` choices are request
// state (`req.output`, declared once on the app), read by a scope's preValidation hook (after the body,
// before the handler: the order the API has always answered in) and applied by the reply's serializer.
// A handler returns its value; the caller's choices shape the JSON text.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { DEFAULT_OUTPUT, parseOutputOptions, renderJson, type OutputOptions } from "./system-parameters.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The call's standard parameters; null until its route has read them (then the defaults apply). */
    output: OutputOptions | null;
  }
}

export const JSON_TYPE = "application/json; charset=utf-8";

/** The serializers of the answers without a mask, made once: most calls name no `fields`. */
const PRETTY = (body: unknown): string => renderJson(DEFAULT_OUTPUT, body);
const COMPACT = (body: unknown): string => renderJson({ pretty: false }, body);

/** The call's output options: its own once its route has read them, the defaults before. */
export function outputOf(req: FastifyRequest): OutputOptions {
  return req.output ?? DEFAULT_OUTPUT;
}

/** Declares `req.output` on the app, so every scope's requests have it (null until read). */
export function declareOutput(app: FastifyInstance): void {
  app.decorateRequest("output", null);
}

/** A preValidation hook: the call's standard parameters; a bad value is a 400 before the handler runs. */
export function readSystemParameters(
  req: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  try {
    req.output = parseOutputOptions(req.query as Readonly<Record<string, unknown>>);
  } catch (err) {
    done(err as Error);
    return;
  }
  done();
}

/**
 * Makes the reply's body JSON as the call asked for it: pretty or compact, and masked by `fields`
 * unless `masked` is false (an error body is never masked: a partial error would hide the error).
 */
export function asJson(reply: FastifyReply, masked = true): FastifyReply {
  const output = outputOf(reply.request);
  const serializer =
    masked && output.mask ? (body: unknown) => renderJson(output, body) : output.pretty ? PRETTY : COMPACT;
  return reply.type(JSON_TYPE).serializer(serializer);
}
