import { tsImport } from "tsx/esm/api";

export default async function globalTeardown() {
  const { stopTestbed } = await tsImport("./testbed.ts", import.meta.url);
  await stopTestbed();
}
