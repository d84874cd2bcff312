import http from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { KubeHttp, sameTls } from "../../../src/runtime/kube-http.js";

/** A local server that writes `parts` as separate chunks of one answer. */
async function serve(parts: readonly Buffer[]): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    const write = (i: number): void => {
      if (i === parts.length) {
        res.end();
        return;
      }
      res.write(parts[i], () =>
        setTimeout(() => {
          write(i + 1);
        }, 5),
      );
    };
    write(0);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
}

function client(server: string): KubeHttp {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server, skipTLSVerify: true }],
    users: [{ name: "u" }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  });
  return new KubeHttp(kc);
}

test("an answer whose chunks split a multi-byte character decodes as the whole would", async () => {
  const body = Buffer.from(JSON.stringify({ message: "Größe: 5 € — ✓ 🚀" }), "utf8");
  // Split inside each multi-byte sequence: every byte is its own chunk.
  const parts = [...body].map((byte) => Buffer.from([byte]));
  const server = await serve(parts);
  try {
    await expect(client(server.url).request("GET", "/x")).resolves.toEqual({ message: "Größe: 5 € — ✓ 🚀" });
  } finally {
    await server.close();
  }
});

test.each([
  ["equal Buffers made apart", [Buffer.from("ca"), "host"], [Buffer.from("ca"), "host"], true],
  ["a Buffer whose bytes differ", [Buffer.from("ca")], [Buffer.from("cb")], false],
  [
    "lists of Buffers, equal",
    [[Buffer.from("a"), Buffer.from("b")]],
    [[Buffer.from("a"), Buffer.from("b")]],
    true,
  ],
  ["lists of different lengths", [[Buffer.from("a")]], [[Buffer.from("a"), Buffer.from("b")]], false],
  ["a string against its Buffer", ["ca"], [Buffer.from("ca")], false],
  ["a setting that changed", [undefined, false], [undefined, true], false],
  ["nothing on either side", [undefined, undefined], [undefined, undefined], true],
])("the agent's TLS material: %s", (_case, a, b, same) => {
  expect(sameTls(a, b)).toBe(same);
});
