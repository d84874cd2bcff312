// Sign-in, sign-out and keeping the session alive: everything of the UI that talks to Auth.js.
import type { AuthPaths } from "../answers.js";
import { h } from "./dom.js";

let known: AuthPaths | undefined;

/** Records where Auth.js lives, as the server's /me answer says (AUTH_BASE_PATH, AUTH_PAGES_SIGN_IN). */
export function learnAuthPaths(paths: AuthPaths): void {
  known = paths;
}

/** The sign-in paths; the one place the UI reads them. Only called once /me has answered. */
function authPaths(): AuthPaths {
  if (!known) throw new Error("the sign-in paths are not known before /me answers");
  return known;
}

/**
 * Off to the sign-in page, coming back to the page open now. Before /me has answered, a reload lets
 * the server's guard redirect to wherever sign-in is configured.
 */
export function signInAgain(): void {
  if (!known) {
    location.reload();
    return;
  }
  const callbackUrl = encodeURIComponent(location.pathname + location.hash);
  location.assign(`${known.signInPage}?callbackUrl=${callbackUrl}`);
}

/** Auth.js signs out on a POST of its own CSRF token, as its sign-out page would send it. */
export async function signOut(): Promise<void> {
  const { basePath } = authPaths();
  const res = await fetch(`${basePath}/csrf`, { credentials: "same-origin" });
  const { csrfToken } = (await res.json()) as { csrfToken: string };
  const form = h(
    "form",
    { method: "POST", action: `${basePath}/signout` },
    h("input", { type: "hidden", name: "csrfToken", value: csrfToken }),
    h("input", { type: "hidden", name: "callbackUrl", value: "/" }),
  );
  document.body.append(form);
  form.submit();
}

/** The session endpoint refreshes the session cookie (rolling expiry) while the page is open. */
export function keepSessionAlive(everyMs = 10 * 60_000): void {
  window.setInterval(() => {
    void fetch(`${authPaths().basePath}/session`, { credentials: "same-origin" });
  }, everyMs);
}
