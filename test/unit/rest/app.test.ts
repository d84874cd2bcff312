// The access log of the REST app: one line per call with the request id, method, path (never the
// query), status, duration and user, written without redaction — so it must never carry credentials.
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { pino } from "pino";
import { createApp } from "../../../src/rest/app.js";
import type { RestDeps } from "../../../src/rest/deps.js";
import { UnauthenticatedError } from "../../../src/rest/errors.js";
import { ROUTES } from "../../../src/rest/routes.js";

test("the access line has the call's facts and no credential from the header or the query", async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  const deps = {
    publicUrl: "http://localhost:8080",
    authenticator: {
      authenticate: () =>
        Promise.reject(new UnauthenticatedError("Request had invalid authentication credentials.")),
    },
  } as unknown as RestDeps;
  const app = createApp({
    log: pino({ level: "info" }, sink),
    notReady: () => [],
    rest: { deps, routes: ROUTES, maxBodyBytes: 1 << 20, discovery: { endpoints: [] } },
  });
  const { server } = app;
  await app.fastify.ready();
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const path = "/compute/v1/projects/p/zones/z/operations/op-1";
    const res = await fetch(`${base}${path}?access_token=query-secret`, {
      headers: { authorization: "Bearer header-secret" },
    });
    expect(res.status).toBe(401);
    await new Promise((resolve) => setImmediate(resolve));
    const access = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === "request");
    expect(access).toEqual([
      expect.objectContaining({ method: "GET", path, status: 401, reqId: expect.any(String) as unknown }),
    ]);
    expect(lines.join("\n")).not.toMatch(/secret/);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
