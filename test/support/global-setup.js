// Jest global setup for the integration project: one real control plane and one real redis-server per
// run. Loads the TypeScript testbed through tsx, since jest does not transform global setup modules.
import { tsImport } from "tsx/esm/api";

export default async function globalSetup() {
  const { startTestbed } = await tsImport("./testbed.ts", import.meta.url);
  await startTestbed();
}
