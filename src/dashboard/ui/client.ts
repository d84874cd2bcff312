// The dashboard's JSON API as the page calls it: JSON in and out, the CSRF token on mutations, and a
// lapsed session sends the user to sign in again.
import { signInAgain } from "./auth.js";

export const API = "/dashboard/api";

/** The double-submit token from GET /me, sent back on every mutation. */
let csrfToken = "";
export function useCsrfToken(token: string): void {
  csrfToken = token;
}

interface Options {
  readonly method?: "GET" | "POST";
  readonly body?: unknown;
}

/** Calls the API; the answer is typed by the caller from src/dashboard/answers.ts. */
export async function api<T>(path: string, options: Options = {}): Promise<T> {
  const method = options.method ?? "GET";
  const headers: Record<string, string> = { Accept: "application/json" };
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET") headers["X-CSRF-Token"] = csrfToken;
  const res = await fetch(`${API}${path}`, {
    method,
    headers,
    credentials: "same-origin",
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  });
  if (res.status === 401) {
    signInAgain();
    throw new Error("signed out");
  }
  const body: unknown = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(errorMessage(body) ?? `HTTP ${res.status}`);
  // The server's answers are declared in answers.ts and its handlers are checked against them.
  return body as T;
}

/** The message of a Google-style error body (`{ error: { message } }`). */
function errorMessage(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || !("error" in body)) return undefined;
  const { error } = body;
  if (typeof error !== "object" || error === null || !("message" in error)) return undefined;
  return typeof error.message === "string" ? error.message : undefined;
}
