// System packages the testbed needs from Debian. Installed with apt-get when missing and running as
// root (a fresh machine of this project's kind); otherwise a clear message names what to install.
import { spawnSync } from "node:child_process";

const PACKAGES: Record<string, string> = {
  "redis-server": "redis-server",
  openssl: "openssl",
  // The dashboard's browser tests drive Debian's Chromium (playwright-core downloads no browser).
  chromium: "chromium",
};

/** Packages that install no command, by the module of Debian's python3 each provides. */
const PYTHON_MODULES: Record<string, string> = {
  // Google's official Python client, driven by test/integration/rest/python-client.test.ts.
  googleapiclient: "python3-googleapi",
};

const has = (cmd: string): boolean => spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;
const hasModule = (m: string): boolean => spawnSync("/usr/bin/python3", ["-c", `import ${m}`]).status === 0;

export function ensureSystemPackages(log: (m: string) => void = (m) => process.stderr.write(m + "\n")): void {
  const missing = [
    ...Object.entries(PACKAGES).filter(([cmd]) => !has(cmd)),
    ...Object.entries(PYTHON_MODULES).filter(([m]) => !hasModule(m)),
  ];
  if (missing.length === 0) return;
  const pkgs = missing.map(([, pkg]) => pkg);
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !has("apt-get")) {
    throw new Error(
      `missing system packages: ${pkgs.join(", ")}. Install them (Debian: apt-get install ${pkgs.join(" ")}).`,
    );
  }
  log(`[system] installing ${pkgs.join(", ")} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const args of [
    ["update", "-qq"],
    ["install", "-y", "-qq", "--no-install-recommends", ...pkgs],
  ]) {
    const res = spawnSync("apt-get", args, { stdio: "inherit", env });
    if (res.status !== 0) throw new Error(`apt-get ${args.join(" ")} failed with exit ${res.status}`);
  }
}
