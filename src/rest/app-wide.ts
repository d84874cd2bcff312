// A plugin whose hooks, decorators and handlers apply to the instance it is registered on rather than
// to a scope of its own: what the fastify-plugin package does, through Fastify's documented
// `skip-override` property (the project takes no dependency for one line).
import type { FastifyPluginCallback } from "fastify";

export function appWide(plugin: FastifyPluginCallback): FastifyPluginCallback {
  return Object.assign(plugin, { [Symbol.for("skip-override")]: true });
}
