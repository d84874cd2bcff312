// The dashboard's page and its assets: the guarded page at /, its public scripts, styles and images
// under /ui (served by @fastify/static: Fastify's core serves no files), and the security headers the
// page and the JSON API are served with.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { addRoutes } from "../rest/http-route.js";

/** The UI's page, styles and images: src/dashboard/ui, or its copy in dist/dashboard/ui once built. */
const UI_DIR = fileURLToPath(new URL("./ui/", import.meta.url));
/**
 * The UI's scripts, compiled by tsc (src/dashboard/ui/tsconfig.json) into dist/browser, laid out as
 * under src/ so that their relative imports resolve. `npm run build` writes them, and `npm run build:ui`
 * before `npm run dev`/`operator` and the tests: this module runs from src/ (tsx) or dist/, both two
 * levels below the root that holds dist/.
 */
export const BROWSER_DIR = fileURLToPath(new URL("../../dist/browser/", import.meta.url));

/** Whether the UI's scripts have been compiled (the page is useless without them). */
export function uiCompiled(): boolean {
  return existsSync(path.join(BROWSER_DIR, "dashboard", "ui", "app.js"));
}

/** The UI's own assets only: no CDN, no inline script, no framing. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

/** The security headers of the page, its assets and the JSON API (a hijacked stream takes them along: api.ts). */
export function harden(reply: FastifyReply): void {
  void reply.headers({
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
  });
}

/** A check of the dashboard's routes, run before the handler (the host check, the session guard). */
export type Front = (req: FastifyRequest, reply: FastifyReply) => void | Promise<void>;

/** One preHandler hook running `checks` in order, until one throws or answers (a redirect). */
export function inOrder(...checks: readonly Front[]) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    for (const check of checks) {
      await check(req, reply);
      if (reply.sent) return;
    }
  };
}

/** The page (behind `hostCheck` and `guarded`, the session guard) and its assets. */
export async function site(app: FastifyInstance, hostCheck: Front, guarded: Front): Promise<void> {
  addRoutes(app, [
    {
      method: "GET",
      url: "/",
      preHandler: inOrder(
        hostCheck,
        (_req, reply) => {
          harden(reply);
        },
        guarded,
      ),
      handler: async (_req, reply) => {
        const page = await readFile(path.join(UI_DIR, "index.html"));
        void reply.header("Cache-Control", "no-store").type("text/html; charset=utf-8");
        return page;
      },
    },
    { method: "GET", url: "/dashboard", handler: (_req, reply) => reply.redirect("/", 302) },
  ]);
  // Assets are public (a custom sign-in page may use them) and hold nothing but code and styles.
  await app.register(async (ui) => {
    ui.addHook("onRequest", (_req, reply, done) => {
      harden(reply);
      done();
    });
    await ui.register(fastifyStatic, { root: BROWSER_DIR, prefix: "/ui/js/", index: false, maxAge: "5m" });
    await ui.register(fastifyStatic, {
      root: UI_DIR,
      prefix: "/ui/",
      index: false,
      maxAge: "5m",
      decorateReply: false,
    });
  });
}
