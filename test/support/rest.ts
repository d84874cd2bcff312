// Helpers for REST tests: an operator process serving the REST API on a known port, ServiceAccount
// tokens with Roles made for the test, and a raw JSON client for the error paths.
import * as k8s from "@kubernetes/client-node";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "../../testbed/processes.js";
import { GROUP } from "../../src/api/names.js";
import { REST_BASE } from "../../src/rest/app.js";
import type { Route } from "../../src/rest/route.js";
import { kubeConfig } from "./kube.js";
import { startOperator, type OperatorProcess } from "./operator.js";

const kc = kubeConfig();
const core = kc.makeApiClient(k8s.CoreV1Api);
const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);

export interface RestOperator {
  readonly process: OperatorProcess;
  readonly baseUrl: string;
}

/**
 * Starts the operator with REST on a free port and waits until /readyz answers 200. `redis` is a URL
 * (one server) or the flags of another topology (Sentinel, Cluster).
 */
export async function startRestOperator(
  namespace: string,
  redis: string | readonly string[],
  args: readonly string[] = [],
): Promise<RestOperator> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const proc = startOperator({
    namespace,
    name: `rest-${port}`,
    args: [
      `--http-port=${port}`,
      ...(typeof redis === "string" ? [`--redis-url=${redis}`] : redis),
      `--public-url=${baseUrl}`,
      ...args,
    ],
  });
  await untilReady(baseUrl, proc);
  return { process: proc, baseUrl };
}

export async function untilReady(baseUrl: string, proc: OperatorProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exited()) throw new Error(`operator exited; see ${proc.log}`);
    try {
      const res = await fetch(`${baseUrl}/readyz`);
      if (res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`operator not ready; see ${proc.log}`);
    await sleep(200);
  }
}

/** A ServiceAccount bound to a Role with `rules` in `namespace`, and a fresh token for it. */
export async function serviceAccountToken(
  namespace: string,
  name: string,
  rules: readonly k8s.V1PolicyRule[],
): Promise<string> {
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  if (rules.length > 0) {
    await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules: [...rules] } });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
        subjects: [{ kind: "ServiceAccount", name, namespace }],
      },
    });
  }
  // For the operator's documented default audience (--token-audiences), as docs/rest.md tells clients
  // to make theirs.
  return tokenFor(namespace, name, ["resize-operator"]);
}

/**
 * A fresh token of ServiceAccount `name` for `audiences`; none means the API server's own audience,
 * what a kubeconfig (kubectl, the plugin) needs.
 */
export async function tokenFor(
  namespace: string,
  name: string,
  audiences: readonly string[] = [],
): Promise<string> {
  const reply = await core.createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { spec: { ...(audiences.length > 0 && { audiences: [...audiences] }), expirationSeconds: 3600 } },
  });
  const token = reply.status?.token;
  if (!token) throw new Error("TokenRequest returned no token");
  return token;
}

/** The rules a full user of the REST API needs: every verb on requests, `use` on groups. */
export function fullAccess(groups: readonly string[] = ["*"]): k8s.V1PolicyRule[] {
  return [
    {
      apiGroups: [GROUP],
      resources: ["resizerequests"],
      verbs: ["get", "list", "create", "update", "delete"],
    },
    // advice.calendarMode reads the project's bookings; futureReservations books, cancels and deletes.
    {
      apiGroups: [GROUP],
      resources: ["futurereservations"],
      verbs: ["get", "list", "create", "update", "delete"],
    },
    // listManagedInstances reads the group, as `kubectl get instancegroupmanagers` does.
    { apiGroups: [GROUP], resources: ["instancegroupmanagers"], verbs: ["get"] },
    {
      apiGroups: [GROUP],
      resources: ["instancegroupmanagers"],
      verbs: ["use"],
      ...(groups[0] !== "*" && { resourceNames: [...groups] }),
    },
  ];
}

/** The URL of a REST route with its `{placeholders}` filled from `values` (every one must be given). */
export function routeUrl(baseUrl: string, route: Route, values: Readonly<Record<string, string>>): string {
  const path = route.path.replace(/\{([A-Za-z]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${route.id}: no value for {${name}}`);
    return encodeURIComponent(value);
  });
  return `${baseUrl}${REST_BASE}/${path}`;
}

export interface RawReply {
  readonly status: number;
  readonly body: unknown;
}

/** One raw call; `body` is sent as is when it is a string (malformed JSON tests). */
export async function call(
  method: string,
  url: string,
  options: { token?: string; body?: unknown; headers?: Readonly<Record<string, string>> } = {},
): Promise<RawReply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.Authorization = `Bearer ${options.token}`;
  let payload: string | undefined;
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
  }
  const res = await fetch(url, { method, headers, ...(payload !== undefined && { body: payload }) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    // Kept as text: the assertion will show it.
  }
  return { status: res.status, body };
}

/** The `error` object of a Google error body. */
export function googleError(reply: RawReply): {
  code: number;
  message: string;
  errors: { domain: string; reason: string; message: string; location?: string; locationType?: string }[];
} {
  const error = (reply.body as { error?: unknown } | undefined)?.error;
  if (typeof error !== "object" || error === null)
    throw new Error(`not a Google error body (${reply.status}): ${JSON.stringify(reply.body)}`);
  return error as ReturnType<typeof googleError>;
}
