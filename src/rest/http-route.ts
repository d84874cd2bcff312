// One row type for every route of the app: Fastify's own route options (method, URL, handler, and a
// row's own hooks or body limit where it has them). Each surface builds its table of rows: the compute
// API from the REST route table (compute.ts), the discovery service (discovery/router.ts), the probes
// (app.ts), the dashboard's page (site.ts) and JSON API (dashboard/api.ts, from its ApiRoute table);
// `addRoutes` registers a table in the surface's scope, whose hooks and error handler are the surface's.
import type { FastifyInstance, RouteOptions } from "fastify";

export type HttpRoute = RouteOptions;

/** Registers a surface's rows on its scope. */
export function addRoutes(scope: FastifyInstance, rows: readonly HttpRoute[]): void {
  for (const row of rows) scope.route(row);
}
