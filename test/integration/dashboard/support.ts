// Shared by the dashboard tests: the operator with the dashboard enabled, a real OpenID provider
// (oidc-provider) in this process, users files, RBAC for dashboard identities, Chromium from Debian
// (playwright-core, never downloaded) and a tiny cookie-jar HTTP client for the sign-in endpoints.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import path from "node:path";
import * as k8s from "@kubernetes/client-node";
import Provider from "oidc-provider";
import { chromium, type Browser } from "playwright-core";
import { GROUP, INSTANCE_GROUP_MANAGER, RESIZE_REQUEST, USE_VERB } from "../../../src/api/names.js";
import { hashPassword } from "../../../src/dashboard/passwords.js";
import { freePort } from "../../../testbed/processes.js";
import { kubeConfig } from "../../support/kube.js";
import { startOperator, type OperatorProcess } from "../../support/operator.js";
import { untilReady } from "../../support/rest.js";
import { repoRoot } from "../api/install.js";

export const CHROMIUM = "/usr/bin/chromium";
export const ARTIFACTS = path.join(repoRoot, "test-artifacts", "dashboard");

/** Chromium from Debian; a missing browser is a failure, never a skipped test. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: install the Debian package chromium (apt-get install -y chromium)`,
    );
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export interface TestUser {
  readonly username: string;
  readonly password: string;
  readonly email: string;
  readonly groups?: readonly string[];
}

/** Writes a users file (cheap scrypt cost: these are throwaway test users). */
export async function writeUsersFile(dir: string, users: readonly TestUser[]): Promise<string> {
  const lines = ["users:"];
  for (const u of users) {
    const hash = await hashPassword(u.password, { N: 1024, r: 8, p: 1 });
    lines.push(
      `  - username: ${u.username}`,
      `    password: "${hash}"`,
      `    email: ${u.email}`,
      `    groups: [${(u.groups ?? []).join(", ")}]`,
    );
  }
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "users.yaml");
  writeFileSync(file, `${lines.join("\n")}\n`, { mode: 0o600 });
  return file;
}

const rbac = kubeConfig().makeApiClient(k8s.RbacAuthorizationV1Api);

/** A Role in `namespace` with `rules`, bound to the user `username` (both named `name`). */
export async function grantRules(
  namespace: string,
  name: string,
  username: string,
  rules: k8s.V1PolicyRule[],
): Promise<void> {
  await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules } });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: username }],
    },
  });
}

/** Removes what grantRules granted. */
export async function revokeRules(namespace: string, name: string): Promise<void> {
  await rbac.deleteNamespacedRoleBinding({ namespace, name });
  await rbac.deleteNamespacedRole({ namespace, name });
}

/** A Role in `namespace` with `verbs` on resize requests (plus reads and `use` of groups) for a user. */
export async function grant(
  namespace: string,
  name: string,
  username: string,
  requestVerbs: string[],
): Promise<void> {
  await grantRules(namespace, name, username, [
    { apiGroups: [GROUP], resources: [RESIZE_REQUEST.plural], verbs: requestVerbs },
    { apiGroups: [GROUP], resources: [INSTANCE_GROUP_MANAGER.plural], verbs: ["get", "list", USE_VERB] },
  ]);
}

/** `list events` in a namespace, as `kubectl create role --verb=list --resource=events` grants it. */
export const LIST_EVENTS: k8s.V1PolicyRule = { apiGroups: [""], resources: ["events"], verbs: ["list"] };

export interface OidcProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  close(): Promise<void>;
}

/**
 * A real OpenID provider on 127.0.0.1 (dev interactions: any login, any password). Every account's
 * email is verified unless `claims` says otherwise for its login (a claim set to undefined is left out).
 */
export async function startOidcProvider(
  redirectUris: readonly string[],
  claims: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {},
): Promise<OidcProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = "resize-dashboard";
  const clientSecret = "oidc-client-secret-for-tests-only-0123456789";
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [...redirectUris],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified"],
      profile: ["name"],
      groups: ["groups"],
    },
    // Claims of the requested scopes in the ID token too (Auth.js reads the ID token).
    conformIdTokenClaims: false,
    findAccount: (_ctx, id) => ({
      accountId: id,
      claims: () => {
        const all: Record<string, unknown> = {
          sub: id,
          email: `${id}@example.com`,
          email_verified: true,
          name: id.charAt(0).toUpperCase() + id.slice(1),
          groups: ["sre"],
          ...claims[id],
        };
        return Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined)) as {
          sub: string;
        };
      },
    }),
    cookies: { keys: ["oidc-cookie-key-for-tests-only"] },
    features: { devInteractions: { enabled: true } },
  });
  const handle = provider.callback();
  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    issuer,
    clientId,
    clientSecret,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

export interface DashboardOperator {
  readonly process: OperatorProcess;
  readonly baseUrl: string;
}

/**
 * The operator with the dashboard enabled by `env` (AUTH_*), REST and Redis, on `options.port` (default:
 * a free one), watching `namespace` only unless `options.watchAllNamespaces`.
 */
export async function startDashboardOperator(
  namespace: string,
  env: Readonly<Record<string, string>>,
  options: {
    readonly port?: number;
    readonly watchAllNamespaces?: boolean;
    readonly args?: readonly string[];
  } = {},
): Promise<DashboardOperator> {
  const p = options.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${p}`;
  const proc = startOperator({
    namespace,
    name: `dashboard-${p}`,
    args: [
      `--http-port=${p}`,
      `--redis-url=${process.env.REDIS_URL ?? ""}`,
      `--public-url=${baseUrl}`,
      ...(options.args ?? []),
    ],
    env: { AUTH_URL: baseUrl, ...env },
    ...(options.watchAllNamespaces && { watchAllNamespaces: true }),
  });
  await untilReady(baseUrl, proc);
  return { process: proc, baseUrl };
}

/** fetch with a cookie jar and no redirect following, for the sign-in endpoints. */
export class Jar {
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async fetch(
    pathOrUrl: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { ...init.headers, cookie: this.header() };
    let body: string | undefined;
    if (init.form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(init.form).toString();
    }
    const res = await fetch(new URL(pathOrUrl, this.baseUrl), {
      method: init.method ?? "GET",
      headers,
      redirect: "manual",
      ...(body !== undefined && { body }),
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair = ""] = c.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (value === "" || /max-age=0|expires=thu, 01 jan 1970/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  async csrf(): Promise<string> {
    const res = await this.fetch("/auth/csrf");
    return ((await res.json()) as { csrfToken: string }).csrfToken;
  }

  /** Credentials sign-in through the real endpoints; returns the redirect location. */
  async signIn(username: string, password: string, callbackUrl = "/"): Promise<string> {
    const csrfToken = await this.csrf();
    const res = await this.fetch("/auth/callback/credentials", {
      method: "POST",
      form: { username, password, csrfToken, callbackUrl },
    });
    return res.headers.get("location") ?? "";
  }
}

/** One message of the live stream as a client receives it. */
export interface StreamFrame {
  readonly event: string;
  readonly data: { readonly op: string; readonly data: Record<string, unknown> };
}

/** An open live stream (/dashboard/api/stream) with the jar's session, collecting what it receives. */
export interface OpenStream {
  readonly frames: StreamFrame[];
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  close(): void;
}

export async function openStream(jar: Jar): Promise<OpenStream> {
  const abort = new AbortController();
  const res = await fetch(new URL("/dashboard/api/stream", jar.baseUrl), {
    headers: { cookie: jar.header(), accept: "text/event-stream" },
    signal: abort.signal,
  });
  if (res.status !== 200 || !res.body) throw new Error(`the stream answered ${res.status}`);
  const frames: StreamFrame[] = [];
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const ended = (async () => {
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        for (let at = buffer.indexOf("\n\n"); at >= 0; at = buffer.indexOf("\n\n")) {
          const lines = buffer.slice(0, at).split("\n");
          buffer = buffer.slice(at + 2);
          const event = lines.find((l) => l.startsWith("event: "))?.slice(7);
          const data = lines.find((l) => l.startsWith("data: "))?.slice(6);
          if (event !== undefined && data !== undefined)
            frames.push({ event, data: JSON.parse(data) as StreamFrame["data"] });
        }
      }
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    }
  })();
  return {
    frames,
    ended,
    close: () => {
      abort.abort();
    },
  };
}

/** Runs `use` with a live stream open for each of two sessions, and closes both afterwards. */
export async function withStreams(
  first: Jar,
  second: Jar,
  use: (first: OpenStream, second: OpenStream) => Promise<void>,
): Promise<void> {
  const [a, b] = await Promise.all([openStream(first), openStream(second)]);
  try {
    await use(a, b);
  } finally {
    a.close();
    b.close();
  }
}
