// Test infrastructure: the pinned kubectl against a testbed cluster, for the modules that start real
// components beside it (kueue.ts, karpenter.ts) and install their manifests with server-side apply.
import { spawn } from "node:child_process";
import type { Toolchain } from "./tools.js";

/** The field manager of everything the testbed applies, so a later apply takes its own fields over. */
export const FIELD_MANAGER = "resize-operator-testbed";

/** Runs the pinned kubectl against `kubeconfig`; resolves with its stdout, rejects with its stderr. */
export function kubectl(
  tools: Toolchain,
  kubeconfig: string,
  args: readonly string[],
  input?: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(tools.paths.kubectl, [`--kubeconfig=${kubeconfig}`, ...args], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`kubectl ${args.join(" ")} failed (exit ${code}): ${err.trim()}`));
    });
    child.stdin.end(input ?? "");
  });
}

/**
 * Server-side apply of `file` (`-` with `input` on stdin); returns the applied objects' names. Server-side,
 * because client-side apply keeps the whole object in an annotation that large CRDs do not fit.
 */
export async function apply(
  tools: Toolchain,
  kubeconfig: string,
  file: string,
  input?: string,
): Promise<string[]> {
  const args = ["apply", "--server-side", "--force-conflicts", `--field-manager=${FIELD_MANAGER}`];
  const out = await kubectl(tools, kubeconfig, [...args, "-f", file, "-o", "name"], input);
  return out.split("\n").filter(Boolean);
}

/** Applies the CRDs in `file` and waits until every one is Established (served). */
export async function installCrds(tools: Toolchain, kubeconfig: string, file: string): Promise<void> {
  const names = await apply(tools, kubeconfig, file);
  await kubectl(tools, kubeconfig, ["wait", "--for=condition=Established", "--timeout=60s", ...names]);
}

/** The names of a component's mutating and validating webhook configurations. */
export interface WebhookConfigurationNames {
  readonly mutating: string;
  readonly validating: string;
}

/**
 * Removes a stopped component's webhook configurations: its fail-closed webhooks would otherwise refuse
 * every change to the objects they cover, finalizers too. Best effort (a stopping testbed goes on).
 */
export async function deleteWebhookConfigurations(
  tools: Toolchain,
  kubeconfig: string,
  names: WebhookConfigurationNames,
): Promise<void> {
  await kubectl(tools, kubeconfig, [
    "delete",
    "--ignore-not-found",
    "--wait=false",
    "--request-timeout=10s",
    `mutatingwebhookconfiguration/${names.mutating}`,
    `validatingwebhookconfiguration/${names.validating}`,
  ]).catch(() => undefined);
}
