// The rootUrl rule and the HTTP behaviour of the discovery service, on an in-process app: the
// configured public URL wins; without it the request's origin counts only behind a trusted proxy;
// answers are public and conditional (ETag / If-None-Match).
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { createApp, type AppOptions } from "../../../src/rest/app.js";
import type { RestDeps } from "../../../src/rest/deps.js";
import { ROUTES } from "../../../src/rest/routes.js";

const REST = "/discovery/v1/apis/compute/v1/rest";

async function withApp<T>(
  options: Partial<AppOptions> & { publicUrl?: string },
  fn: (base: string) => Promise<T>,
) {
  const app = createApp({
    log: pino({ level: "silent" }),
    notReady: () => [],
    ...(options.trustProxy !== undefined && { trustProxy: options.trustProxy }),
    rest: {
      deps: { publicUrl: "http://localhost:8080" } as RestDeps,
      routes: ROUTES,
      maxBodyBytes: 1 << 20,
      discovery: { ...(options.publicUrl && { publicUrl: options.publicUrl }), endpoints: [] },
    },
  });
  const { server } = app;
  await app.fastify.ready();
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    return await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

const forwarded = { "X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example" };

async function rootUrl(base: string, headers: Record<string, string> = {}): Promise<string> {
  const doc = (await (await fetch(`${base}${REST}`, { headers })).json()) as { rootUrl: string };
  return doc.rootUrl;
}

test("--public-url decides, whatever the request says", async () => {
  await withApp({ publicUrl: "https://ops.example/prefix", trustProxy: true }, async (base) => {
    expect(await rootUrl(base, forwarded)).toBe("https://ops.example/prefix/");
    const doc = (await (await fetch(`${base}${REST}`)).json()) as { basePath: string; baseUrl: string };
    expect(doc).toMatchObject({
      basePath: "/prefix/compute/v1/",
      baseUrl: "https://ops.example/prefix/compute/v1/",
    });
  });
});

test("without --public-url and without a trusted proxy: the default URL, headers ignored", async () => {
  await withApp({}, async (base) => {
    expect(await rootUrl(base, forwarded)).toBe("http://localhost:8080/");
  });
});

test("without --public-url behind a trusted proxy: the forwarded origin, and the answer varies by it", async () => {
  await withApp({ trustProxy: "loopback" }, async (base) => {
    expect(await rootUrl(base, forwarded)).toBe("https://evil.example/");
    expect(await rootUrl(base)).toBe(`${base}/`);
    const res = await fetch(`${base}/discovery/v1/apis`, { headers: forwarded });
    expect(res.headers.get("vary")).toMatch(/X-Forwarded-Host/);
    const list = (await res.json()) as { items: { discoveryRestUrl: string }[] };
    expect(list.items[0]?.discoveryRestUrl).toBe(`https://evil.example${REST}`);
  });
});

test("public, conditional, and strict about its own parameters", async () => {
  await withApp({}, async (base) => {
    const first = await fetch(`${base}${REST}`);
    const etag = first.headers.get("etag") ?? "";
    expect(first.status).toBe(200);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const again = await fetch(`${base}${REST}`, { headers: { "If-None-Match": ifNoneMatch } });
      expect([ifNoneMatch, again.status]).toEqual([ifNoneMatch, 304]);
    }
    expect((await fetch(`${base}${REST}`, { headers: { "If-None-Match": '"other"' } })).status).toBe(200);
    expect((await fetch(`${base}${REST}`, { method: "HEAD" })).headers.get("etag")).toBe(etag);
    const bad = await fetch(`${base}${REST}?bogus=1`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { errors: [{ reason: "invalidParameter", location: "bogus" }] },
    });
    const trimmed = (await (await fetch(`${base}${REST}?fields=id,revision`)).json()) as object;
    expect(Object.keys(trimmed)).toEqual(["id", "revision"]);
    expect((await fetch(`${base}/discovery/v1/apis/storage/v1/rest`)).status).toBe(404);
  });
});
