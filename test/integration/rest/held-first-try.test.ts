// A call held in a frozen operator's socket, whose client gave up and closed its connection, makes no
// change when the operator runs again: its client may have retried and been answered meanwhile, so a
// late change would be one nobody can order (docs/reliability.md, V6's check, in the case V10 raised).
// The operator is frozen with SIGSTOP, an insert is written to it over a raw connection and the
// connection closed (as Google's Go client does when its deadline passes), and the operator continued:
// the request is never created. The same insert over a connection kept open is served.
import { randomUUID } from "node:crypto";
import { connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { installApi } from "../api/install.js";
import { createTestNamespace } from "../../support/kube.js";
import { stopAll } from "../../support/operator.js";
import { createGroup, createWorkers, listRequests } from "../../support/resize.js";
import * as rest from "../../support/rest.js";

const ZONE = "local-a";
let ns: Awaited<ReturnType<typeof createTestNamespace>>;
let operator: rest.RestOperator;
let token = "";

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("rest-held-try");
  await createWorkers(ns.name, "workers", 100);
  await createGroup(ns.name, "workers", { maxSize: 50, provisioningTimeout: "1h" });
  token = await rest.serviceAccountToken(ns.name, "client", rest.fullAccess());
  operator = await rest.startRestOperator(ns.name, process.env.REDIS_URL ?? "");
});

afterAll(async () => {
  operator.process.child.kill("SIGCONT");
  await stopAll([operator.process]);
  await ns.remove();
});

/** Writes a whole insert request on a new connection to the operator; the socket stays open. */
async function sendInsert(
  name: string,
  requestId: string,
): Promise<{ socket: Socket; answer: Promise<void> }> {
  const { hostname, port } = new URL(operator.baseUrl);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  const body = JSON.stringify({ name, resizeBy: 1 });
  const path = `/compute/v1/projects/${ns.name}/zones/${ZONE}/instanceGroupManagers/workers/resizeRequests?requestId=${requestId}`;
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const answer = new Promise<void>((resolve) =>
    socket.once("close", () => {
      resolve();
    }),
  );
  return { socket, answer };
}

test("an insert whose client closed its connection while the operator was frozen is not made", async () => {
  operator.process.child.kill("SIGSTOP");
  let continued = false;
  try {
    const held = await sendInsert("held", randomUUID());
    const kept = await sendInsert("kept", randomUUID());
    // The held call's client gives up: its whole request is in the operator's socket, then its FIN.
    held.socket.end();
    await sleep(1_000);
    operator.process.child.kill("SIGCONT");
    continued = true;
    // The call over the open connection is served, so the operator did read what it was sent.
    const served = await Promise.race([
      new Promise<string>((resolve) =>
        kept.socket.once("data", (chunk: Buffer) => {
          resolve(chunk.toString());
        }),
      ),
      sleep(30_000, "no answer within 30 s"),
    ]);
    expect(served).toMatch(/^HTTP\/1\.1 200 /);
    kept.socket.destroy();
    await held.answer;
    await sleep(2_000);
    const names = (await listRequests(ns.name)).map((rr) => rr.metadata.name);
    expect(names).toContain("kept");
    expect(names).not.toContain("held");
  } finally {
    if (!continued) operator.process.child.kill("SIGCONT");
  }
});
