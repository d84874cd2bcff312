import { fieldTree } from "../../../src/api/index.js";
import Fastify from "fastify";
import { computeRoutes } from "../../../src/rest/compute.js";
import type { RestDeps } from "../../../src/rest/deps.js";
import { pino } from "pino";
import { ROUTES, SCOPES } from "../../../src/rest/routes.js";

test("the table has the compute API's methods, each once", () => {
  expect(ROUTES.map((r) => r.id).sort()).toEqual([
    "compute.advice.calendarMode",
    "compute.futureReservations.cancel",
    "compute.futureReservations.delete",
    "compute.futureReservations.get",
    "compute.futureReservations.insert",
    "compute.futureReservations.list",
    "compute.instanceGroupManagerResizeRequests.cancel",
    "compute.instanceGroupManagerResizeRequests.delete",
    "compute.instanceGroupManagerResizeRequests.get",
    "compute.instanceGroupManagerResizeRequests.insert",
    "compute.instanceGroupManagerResizeRequests.list",
    "compute.instanceGroupManagers.listManagedInstances",
    "compute.regionInstanceGroupManagerResizeRequests.cancel",
    "compute.regionInstanceGroupManagerResizeRequests.delete",
    "compute.regionInstanceGroupManagerResizeRequests.get",
    "compute.regionInstanceGroupManagerResizeRequests.insert",
    "compute.regionInstanceGroupManagerResizeRequests.list",
    "compute.regionInstanceGroupManagers.listManagedInstances",
    "compute.regionOperations.delete",
    "compute.regionOperations.get",
    "compute.regionOperations.list",
    "compute.regionOperations.wait",
    "compute.zoneOperations.delete",
    "compute.zoneOperations.get",
    "compute.zoneOperations.list",
    "compute.zoneOperations.wait",
  ]);
  expect(new Set(ROUTES.map((r) => `${r.httpMethod} ${r.path}`)).size).toBe(ROUTES.length);
});

test.each(ROUTES.map((r) => [r.id, r] as const))("%s is consistent", (id, route) => {
  expect(id).toBe(`compute.${route.resource}.${route.method}`);
  const placeholders = [...route.path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1]);
  const pathParams = route.parameters.filter((p) => p.location === "path").map((p) => p.name);
  expect(pathParams.sort()).toEqual([...placeholders].sort());
  expect(route.parameters.filter((p) => p.location === "path").every((p) => p.required)).toBe(true);
  for (const name of route.parameterOrder)
    expect(route.parameters.find((p) => p.name === name)?.required).toBe(true);
  expect(route.scopes.length).toBeGreaterThan(0);
  expect(route.scopes).toContain(SCOPES.cloudPlatform);
  // Every schema projects to the discovery document's field tree.
  for (const p of route.parameters) expect(fieldTree(p.schema).type).toBe(p.type);
  if (route.response) expect(fieldTree(route.response).schemaId).toBeDefined();
  if (route.request) expect(fieldTree(route.request.schema).schemaId).toBeDefined();
});

test("each template, as registered, matches a path with a value in every placeholder", async () => {
  const app = Fastify();
  computeRoutes(app, { routes: ROUTES, deps: {} as RestDeps, log: pino({ level: "silent" }), base: "/c" });
  await app.ready();
  for (const route of ROUTES) {
    const sample = route.path.replace(/\{([A-Za-z]+)\}/g, "v-$1");
    const found = app.findRoute({ method: route.httpMethod, url: `/c/${sample}` });
    expect(found.params).toEqual(
      Object.fromEntries(
        route.parameters.filter((q) => q.location === "path").map((p) => [p.name, `v-${p.name}`]),
      ),
    );
  }
});
