// Shared by the API integration tests: the pinned kubectl against the test cluster, installing the
// generated CRDs and admission policy exactly as a user would (server-side apply of the files), and
// reading the API server's message out of a rejected request.
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import * as k8s from "@kubernetes/client-node";
import { GROUP, INSTANCE_GROUP_MANAGER, RESIZE_REQUEST } from "../../../src/api/names.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const run = promisify(execFile);

/** Runs kubectl; resolves with its output, rejects with stderr in the message. */
export async function kubectl(...args: string[]): Promise<string> {
  const bin = process.env.KUBECTL;
  const kubeconfig = process.env.KUBECONFIG;
  if (!bin || !kubeconfig) throw new Error("KUBECTL and KUBECONFIG are set by the jest global setup");
  try {
    const { stdout } = await run(bin, ["--kubeconfig", kubeconfig, ...args], { cwd: repoRoot });
    return stdout;
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? "";
    throw new Error(`kubectl ${args.join(" ")} failed: ${stderr}`, { cause: err });
  }
}

export async function installApi(): Promise<void> {
  await kubectl("apply", "--server-side", "-f", "manifests/crds/", "-f", "manifests/admission/");
  for (const { plural } of [INSTANCE_GROUP_MANAGER, RESIZE_REQUEST]) {
    await kubectl("wait", "--for=condition=Established", "--timeout=60s", `crd/${plural}.${GROUP}`);
  }
}

/** The message of the Status the API server answered a failed request with. */
export function statusMessage(err: unknown): string {
  if (!(err instanceof k8s.ApiException)) throw err;
  const body: unknown = typeof err.body === "string" ? JSON.parse(err.body) : err.body;
  const message = (body as { message?: unknown } | undefined)?.message;
  return typeof message === "string" ? message : String(err.body);
}

/** Awaits a request that must fail, and returns the API server's message. */
export async function rejection(request: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await request;
  } catch (err) {
    return { code: err instanceof k8s.ApiException ? err.code : 0, message: statusMessage(err) };
  }
  throw new Error("the API server accepted the request");
}
