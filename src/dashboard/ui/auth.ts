// Sign-in, sign-out and keeping the session alive: everything of the UI that talks to Auth.js.
import { h } from "./dom.js";

export interface AuthPaths {
  /** Where Auth.js is mounted (AUTH_BASE_PATH). */
  readonly basePath: string;
  /** Where a signed-out user signs in (AUTH_PAGES_SIGN_IN, or Auth.js's built-in page). */
  readonly signInPage: string;
}

const DEFAULT_BASE_PATH = "/auth";

/**
 * The sign-in paths. The one place the UI learns them: the server is to provide them (issue 17);
 * until it does, the defaults of AUTH_BASE_PATH and the built-in sign-in page.
 */
export function authPaths(): AuthPaths {
  const basePath = DEFAULT_BASE_PATH;
  return { basePath, signInPage: `${basePath}/signin` };
}

/** Off to the sign-in page, coming back to the page open now. */
export function signInAgain(): void {
  const callbackUrl = encodeURIComponent(location.pathname + location.hash);
  location.assign(`${authPaths().signInPage}?callbackUrl=${callbackUrl}`);
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
