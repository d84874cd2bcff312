// The dashboard's page and its assets: the guarded page at /, its public scripts, styles and images
// under /ui, and the security headers the page and the JSON API are served with.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import express, { type RequestHandler } from "express";

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

export const hardened: RequestHandler = (_req, res, next) => {
  res.setHeader("Content-Security-Policy", CSP);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "same-origin");
  next();
};

/** The page (behind `hostCheck` and `guarded`, the session guard) and its assets. */
export function site(hostCheck: RequestHandler, guarded: RequestHandler): express.Router {
  const router = express.Router();
  router.use("/ui", hardened);
  router.get("/", hostCheck, hardened, guarded, (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.sendFile("index.html", { root: UI_DIR });
  });
  router.get("/dashboard", (_req, res) => {
    res.redirect(302, "/");
  });
  // Assets are public (a custom sign-in page may use them) and hold nothing but code and styles.
  router.use("/ui/js", express.static(BROWSER_DIR, { index: false, maxAge: "5m", fallthrough: false }));
  router.use("/ui", express.static(UI_DIR, { index: false, maxAge: "5m", fallthrough: false }));
  return router;
}
