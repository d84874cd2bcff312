// A user holds at most MAX_STREAMS_PER_USER live streams at once (dashboard/sse.ts): one more is
// answered 429 without being served, and closing one makes room. On b3d6364 every stream was served,
// however many a session opened.
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { MAX_STREAMS_PER_USER } from "../../../src/dashboard/sse.js";
import { installApi } from "../api/install.js";
import { DashboardClient, type LiveStream } from "../../support/dashboard-client.js";
import { createTestNamespace, eventually } from "../../support/kube.js";
import { stopAll } from "../../support/operator.js";
import { startDashboardOperator, writeUsersFile, type DashboardOperator } from "./support.js";

const USER = { username: "streamer", password: "streamer password 1", email: "streamer@example.com" };
let ns: { name: string; remove: () => Promise<void> };
let op: DashboardOperator;
const streams: LiveStream[] = [];

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("stream-cap");
  const usersFile = await writeUsersFile(mkdtempSync(path.join(tmpdir(), "stream-cap-")), [USER]);
  op = await startDashboardOperator(ns.name, {
    AUTH_SECRET: randomUUID() + randomUUID(),
    AUTH_CREDENTIALS_FILE: usersFile,
  });
});
afterAll(async () => {
  for (const s of streams) s.close();
  await stopAll([op.process]);
  await ns.remove();
});

test("one stream past the cap is refused with 429; closing one makes room", async () => {
  const client = await DashboardClient.signIn(op.baseUrl, USER);
  for (let i = 0; i < MAX_STREAMS_PER_USER; i++) streams.push(client.stream());
  expect(await Promise.all(streams.map((s) => s.opened))).toEqual(Array(MAX_STREAMS_PER_USER).fill(200));
  // The same user in a second session counts too.
  const again = await DashboardClient.signIn(op.baseUrl, USER);
  const refused = again.stream();
  expect(await refused.opened).toBe(429);
  refused.close();
  streams.pop()?.close();
  await eventually("a closed stream to make room", async () => {
    const next = again.stream();
    const status = await next.opened;
    if (status === 200) {
      streams.push(next);
      return true;
    }
    next.close();
    await sleep(200);
    return undefined;
  });
});
