// The bundled Redis's password, on the real cluster and a real redis-server. A default `helm install`
// makes a Secret with a random password and `helm upgrade` keeps it (helm `lookup`); no container's
// command or arguments, in any rendering of the chart or in the plain manifests, carries the password
// or a `$(VAR)` reference to a Secret-fed variable (which the kubelet would expand into the process's
// arguments). The start script the chart renders for Redis runs here against a real redis-server: it
// refuses commands without the password (NOAUTH) and accepts the password — one with quotes,
// backslashes and spaces too, as a Secret of the user's may hold — and the operator, given the file
// the chart mounts for it, authenticates to it.
//
// kwok runs no containers, so the script runs here: with this machine's sh, sed and tr (dash and GNU)
// rather than the Redis image's busybox; the paths of the mounted volumes are the one substitution.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { installApi } from "../api/install.js";
import { promisify } from "node:util";
import * as k8s from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";
import { freePort, waitFor } from "../../../testbed/processes.js";
import { ping } from "../../../testbed/redis.js";
import { createTestNamespace, kubeConfig } from "../../support/kube.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { untilReady } from "../../support/rest.js";
import { CHART, helm, repoRoot } from "./helm.js";

const run = promisify(execFile);
const core = kubeConfig().makeApiClient(k8s.CoreV1Api);

interface Workload {
  readonly kind?: string;
  readonly metadata?: { readonly name?: string };
  readonly spec?: { readonly template?: { readonly spec?: k8s.V1PodSpec } };
}

let ns: { name: string; remove: () => Promise<void> };
let dir: string;
let release: string;
let fullname: string;
const processes: OperatorProcess[] = [];
const INSTALL_SETTINGS = ["--set", "admissionPolicy.enabled=false", "--set", "finalizerPolicy.enabled=false"];

beforeAll(async () => {
  // The admission policies, as the other files install them: the operator scales nothing without them
  // (controller/admission-guard.ts), and the release here is installed without its own copy.
  await installApi();
  ns = await createTestNamespace("redis-auth");
  dir = mkdtempSync(path.join(tmpdir(), "redis-auth-"));
  release = `ra-${ns.name.slice(-5)}`;
  fullname = `${release}-resize-operator`;
});

afterAll(async () => {
  await stopAll(processes);
  await helm("uninstall", release, "-n", ns.name, "--ignore-not-found").catch(() => undefined);
  await ns.remove();
  rmSync(dir, { recursive: true, force: true });
});

const workloads = (yaml: string): Workload[] =>
  parseAllDocuments(yaml)
    .map((d) => d.toJS() as Workload | null)
    .filter((o): o is Workload => o?.spec?.template?.spec !== undefined);

async function render(...args: string[]): Promise<Workload[]> {
  return workloads(await helm("template", release, CHART, "-n", ns.name, ...args));
}

/** The bundled Redis's StatefulSet pod, rendered with `set` values. */
async function redisPod(...set: string[]): Promise<k8s.V1PodSpec> {
  const objects = await render(...set.flatMap((s) => ["--set", s]));
  const pod = objects.find((o) => o.kind === "StatefulSet")?.spec?.template?.spec;
  if (!pod) throw new Error("no Redis StatefulSet rendered");
  return pod;
}

const secretPassword = async (name: string, key = "password"): Promise<string> => {
  const secret = await core.readNamespacedSecret({ namespace: ns.name, name });
  return Buffer.from(secret.data?.[key] ?? "", "base64").toString("utf8");
};

/**
 * Every way a container's process arguments could carry a secret: the password itself, or `$(NAME)`
 * of a variable fed from a Secret (the kubelet expands it into the command line). Lists the findings.
 */
function secretsInArguments(objects: readonly Workload[], password?: string): string[] {
  const found: string[] = [];
  for (const o of objects) {
    const pod = o.spec?.template?.spec;
    for (const c of [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])]) {
      const line = [...(c.command ?? []), ...(c.args ?? [])].join(" ");
      const fromSecrets = (c.env ?? []).filter((e) => e.valueFrom?.secretKeyRef).map((e) => e.name);
      const where = `${o.kind ?? "?"}/${o.metadata?.name ?? "?"} container ${c.name}`;
      if (password && line.includes(password)) found.push(`${where}: the password`);
      for (const name of fromSecrets)
        if (line.includes(`$(${name})`)) found.push(`${where}: $(${name}) from a Secret`);
      if (/\$\(REDIS_PASSWORD\)|--requirepass|redis-cli[^|]* -a /.test(line))
        found.push(`${where}: a password on the command line`);
    }
  }
  return found;
}

test("a default install makes a Secret with a random password, and helm upgrade keeps it", async () => {
  await helm("install", release, CHART, "-n", ns.name, ...INSTALL_SETTINGS, "--set", "replicaCount=1");
  const secret = `${fullname}-redis-auth`;
  const password = await secretPassword(secret);
  expect(password).toMatch(/^[A-Za-z0-9]{32}$/);
  // Both the Redis and the operator pods use it.
  const installed = workloads(await helm("get", "manifest", release, "-n", ns.name));
  const secretsOf = (kind: string) =>
    installed
      .find((o) => o.kind === kind)
      ?.spec?.template?.spec?.volumes?.flatMap((v) => (v.secret?.secretName ? [v.secret.secretName] : []));
  expect(secretsOf("StatefulSet")).toEqual([secret]);
  expect(secretsOf("Deployment")).toEqual([secret]);
  expect(secretsInArguments(installed, password)).toEqual([]);

  await helm("upgrade", release, CHART, "-n", ns.name, "--reuse-values", "--set", "operator.logLevel=debug");
  expect(await secretPassword(secret)).toBe(password);
  await helm("upgrade", release, CHART, "-n", ns.name, ...INSTALL_SETTINGS);
  expect(await secretPassword(secret)).toBe(password);
  expect(
    secretsInArguments(workloads(await helm("get", "manifest", release, "-n", ns.name)), password),
  ).toEqual([]);
  // A fresh rendering without the cluster (`helm template`) makes another one: never a fixed password.
  const rendered = parseAllDocuments(
    await helm("template", release, CHART, "-n", ns.name, "--show-only", "templates/redis-auth.yaml"),
  ).map((d) => d.toJS() as { data: Record<string, string> });
  expect(Buffer.from(rendered[0]?.data.password ?? "", "base64").toString()).not.toBe(password);
}, 120_000);

test("no container's command or arguments carries a secret, in any values file or the plain manifests", async () => {
  const renderings: [string, Workload[]][] = [];
  for (const file of readdirSync(path.join(CHART, "ci"))
    .map((f) => `ci/${f}`)
    .concat("values.yaml"))
    renderings.push([file, await render("-f", path.join(CHART, file))]);
  renderings.push(["a Secret of the user's", await render("--set", "redis.bundled.auth.secretName=mine")]);
  const install = path.join(repoRoot, "manifests/install");
  for (const file of readdirSync(install).filter((f) => f.endsWith(".yaml")))
    renderings.push([`manifests/install/${file}`, workloads(readFileSync(path.join(install, file), "utf8"))]);
  const findings = renderings.flatMap(([name, objects]) =>
    secretsInArguments(objects).map((f) => `${name}: ${f}`),
  );
  expect(findings).toEqual([]);
  // Sanity: the check sees the containers (Redis and the operator at least).
  expect(renderings.find(([n]) => n === "values.yaml")?.[1].map((o) => o.kind)).toEqual(
    expect.arrayContaining(["Deployment", "StatefulSet"]),
  );
});

test("the plain manifests ship no password: Redis and the operator read the Secret the user creates", () => {
  const yaml = ["redis.yaml", "deployment.yaml"].map((f) =>
    readFileSync(path.join(repoRoot, "manifests/install", f), "utf8"),
  );
  const objects = yaml.flatMap(workloads);
  const secretNames = objects.flatMap(
    (o) => o.spec?.template?.spec?.volumes?.flatMap((v) => (v.secret ? [v.secret.secretName] : [])) ?? [],
  );
  expect(secretNames).toEqual(["resize-operator-redis-auth", "resize-operator-redis-auth"]);
  const kinds = readdirSync(path.join(repoRoot, "manifests/install"))
    .filter((f) => f.endsWith(".yaml"))
    .flatMap((f) => parseAllDocuments(readFileSync(path.join(repoRoot, "manifests/install", f), "utf8")))
    .map((d) => (d.toJS() as { kind?: string } | null)?.kind);
  expect(kinds).not.toContain("Secret");
});

describe("the rendered Redis, run against a real redis-server", () => {
  let redis: ChildProcess | undefined;

  afterEach(async () => {
    if (redis && redis.exitCode === null) {
      const exited = new Promise((resolve) => redis?.once("exit", resolve));
      redis.kill("SIGTERM");
      await exited;
    }
    redis = undefined;
  });

  /**
   * Runs the StatefulSet's container command as the container would, with the Secret's key `password`
   * holding `secretFile` (the bytes of the mounted file); returns the port it listens on.
   */
  async function startRendered(pod: k8s.V1PodSpec, secretFile: string, name: string): Promise<number> {
    const container = pod.containers[0];
    const [shell = "", ...args] = container?.command ?? [];
    expect(container?.args ?? []).toEqual([]);
    const mounts = new Map((container?.volumeMounts ?? []).map((m) => [m.name, m.mountPath]));
    const root = path.join(dir, name);
    const port = await freePort();
    const local: [string, string][] = [];
    for (const volume of ["auth", "config", "data"]) {
      const mountPath = mounts.get(volume);
      if (!mountPath) throw new Error(`the Redis container mounts no volume ${volume}`);
      local.push([mountPath, path.join(root, volume)]);
      mkdirSync(path.join(root, volume), { recursive: true });
    }
    // The Secret's volume maps the password key to the file `password`.
    const auth = pod.volumes?.find((v) => v.name === "auth")?.secret;
    expect(auth?.items).toEqual([{ key: "password", path: "password" }]);
    writeFileSync(path.join(root, "auth", "password"), secretFile);
    const script = args.map((a) =>
      local
        .reduce((text, [from, to]) => text.replaceAll(from, to), a)
        // The one extra: this server's free port, on loopback only.
        .replace(/redis-server (\S+)/, `redis-server $1 --port ${port} --bind 127.0.0.1`),
    );
    redis = spawn(shell, script, { stdio: "ignore", env: { PATH: process.env.PATH ?? "" } });
    await waitFor(`the rendered redis-server on ${port}`, () => ping(port), 15_000);
    return port;
  }

  const cli = async (port: number, env: Record<string, string>, ...command: string[]): Promise<string> => {
    const { stdout } = await run("redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...command], {
      env: { PATH: process.env.PATH ?? "", ...env },
    });
    return stdout.trim();
  };

  test.each([
    { case: "a generated password", password: "Wq3eR9tY2uI8oP4aS6dF1gH7jK5lZ0xC", file: "same" },
    {
      case: "quotes, backslashes, spaces and a trailing newline",
      password: `p a"s\\s'w\\x41rd $x`,
      file: "newline",
    },
  ])("$case: NOAUTH without it, PONG with it", async ({ password, file }) => {
    const pod = await redisPod();
    const port = await startRendered(pod, file === "newline" ? `${password}\n` : password, file);
    expect(await cli(port, {}, "PING")).toMatch(/^NOAUTH Authentication required/);
    expect(await cli(port, { REDISCLI_AUTH: "wrong" }, "PING")).toMatch(/^NOAUTH/);
    expect(await cli(port, { REDISCLI_AUTH: password }, "PING")).toBe("PONG");
    // The probes get the same password from REDISCLI_AUTH, fed by the same Secret and key.
    const probeAuth = pod.containers[0]?.env?.find((e) => e.name === "REDISCLI_AUTH")?.valueFrom
      ?.secretKeyRef;
    expect(probeAuth).toEqual({ name: `${fullname}-redis-auth`, key: "password" });
    // The password is nowhere in the process's arguments.
    expect(readFileSync(`/proc/${String(redis?.pid)}/cmdline`, "utf8")).not.toContain(password.slice(0, 6));
  });

  test("the operator, given the password file the chart mounts for it, authenticates to that Redis", async () => {
    const password = "operator-side-password-0123456789";
    const port = await startRendered(await redisPod(), `${password}\n`, "operator");
    const deployment = (await render()).find((o) => o.kind === "Deployment")?.spec?.template?.spec;
    const env = deployment?.containers[0]?.env ?? [];
    const fileEnv = env.find((e) => e.name === "REDIS_PASSWORD_FILE")?.value ?? "";
    expect(env.map((e) => e.name)).not.toContain("REDIS_PASSWORD");
    const mount =
      deployment?.containers[0]?.volumeMounts?.find((m) => m.name === "redis-auth")?.mountPath ?? "";
    expect(fileEnv.startsWith(`${mount}/`)).toBe(true);
    // The mounted file, as the operator would find it.
    const file = path.join(dir, "operator-mount", path.relative(mount, fileEnv));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${password}\n`);
    const httpPort = await freePort();
    const baseUrl = `http://127.0.0.1:${httpPort}`;
    const operator = startOperator({
      namespace: ns.name,
      name: "redis-auth",
      args: [`--http-port=${httpPort}`, `--redis-url=redis://127.0.0.1:${port}`, `--public-url=${baseUrl}`],
      env: { REDIS_PASSWORD_FILE: file },
    });
    processes.push(operator);
    // Ready means Redis answered it; refused credentials would have stopped its start-up instead.
    await untilReady(baseUrl, operator);
    const clients = await cli(port, { REDISCLI_AUTH: password }, "CLIENT", "LIST");
    expect(clients.split("\n").length).toBeGreaterThan(1);
    await stopAll([operator]);
  }, 120_000);
});
