// The dispatcher's path matching gives the answers Express 5 gave when it served the REST API: the same
// route (or none) and the same path values for every URL below, checked against a real Express router
// built from the same table as the old REST router built it.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { belowBase, routeFinder } from "../../../src/rest/path-match.js";
import { ROUTES } from "../../../src/rest/routes.js";

const BASE = "/compute/v1";

const PATHS = [
  "/compute/v1/projects/p/zones/z/operations/op-1",
  "/compute/v1/projects/p/zones/z/operations/op-1/",
  "/compute/v1/projects/p/zones/z/operations/op-1//",
  "/COMPUTE/V1/Projects/p/ZONES/z/Operations/op-1",
  "/compute/v1/projects/p%2Fq/zones/z%20a/operations/%C3%A9",
  "/compute/v1/projects/p/zones/z/operations/%ff",
  "/compute/v1/projects/p/zones/z/operations",
  "/compute/v1/projects/p/zones/z/operations/",
  "/compute/v1/projects/p/zones//operations/op",
  "/compute/v1//projects/p/zones/z/operations/op",
  "/compute/v1/projects/p/zones/z/operations/op/wait",
  "/compute/v1/projects/p/zones/z/instanceGroupManagers/g/resizeRequests",
  "/compute/v1/projects/p/zones/z/instanceGroupManagers/g/resizeRequests/r",
  "/compute/v1/projects/p/zones/z/instanceGroupManagers/g/resizeRequests/r/cancel",
  "/compute/v1/projects/p/regions/r/instanceGroupManagers/g/resizeRequests/x",
  "/compute/v1/projects/p/regions/r/operations/o",
  "/compute/v1",
  "/compute/v1/",
  "/compute/v1x/projects/p/zones/z/operations/op",
  "/compute/v2/projects/p/zones/z/operations/op",
];

type Answer = { id: string; params: Record<string, string> } | { error: string } | "none";

const find = routeFinder(ROUTES);

/** What the dispatcher's matching says. */
function ours(method: string, path: string): Answer {
  const below = belowBase(BASE, path);
  if (below === undefined) return "none";
  try {
    const found = find(method, below);
    return found ? { id: found.route.id, params: { ...found.path } as Record<string, string> } : "none";
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

test("every path is matched as Express 5 matched it", async () => {
  const router = express.Router();
  for (const route of ROUTES) {
    const method = route.httpMethod === "GET" ? "get" : route.httpMethod === "POST" ? "post" : "delete";
    router[method]("/" + route.path.replace(/\{([A-Za-z]+)\}/g, ":$1"), (req, res) => {
      res.json({ id: route.id, params: req.params });
    });
  }
  const app = express();
  app.use(BASE, router);
  app.use((_req, res) => {
    res.json("none");
  });
  app.use((err: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.json({ error: err.message });
  });
  const server = createServer(app).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const method of ["GET", "POST", "DELETE"])
      for (const path of PATHS) {
        const theirs = (await (await fetch(`${origin}${path}`, { method })).json()) as Answer;
        expect({ method, path, answer: ours(method, path) }).toEqual({ method, path, answer: theirs });
      }
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
