import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startKarpenter } from "../../../testbed/karpenter.js";
import type { Toolchain } from "../../../testbed/tools.js";

test("a missing Karpenter binary fails the start, naming the binary and npm run tools", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "karpenter-start-"));
  try {
    const missing = path.join(dir, "karpenter");
    const tools = { paths: { karpenter: missing }, assets: {} } as unknown as Toolchain;
    await expect(startKarpenter({ dir, kubeconfig: path.join(dir, "kubeconfig"), tools })).rejects.toThrow(
      `the Karpenter binary is missing (${missing}): run \`npm run tools\` to build it`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
