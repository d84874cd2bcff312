// A real operator process starts without any warning on its output (Node's deprecation or
// experimental warnings, Fastify's FSTDEP codes), and logs each state change of a request once: the
// line is written where the Event is emitted, so a pass that loses a conflict and decides the same
// change again does not print it twice.
import { readFileSync } from "node:fs";
import { installApi } from "../api/install.js";
import { createTestNamespace } from "../../support/kube.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { createGroup, createRequest, createWorkers, untilState } from "../../support/resize.js";

let ns: Awaited<ReturnType<typeof createTestNamespace>>;
let operator: OperatorProcess;

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("clean-start");
  operator = startOperator({ namespace: ns.name, name: "clean-op" });
});
afterAll(async () => {
  await stopAll([operator]);
  await ns.remove();
});

const WARNING = /Warning:|Deprecation|DeprecationWarning|FSTDEP|ExperimentalWarning/;

test("no warning on start, and each state change of a request logged once", async () => {
  await createWorkers(ns.name, "w", 0);
  await createGroup(ns.name, "w", { maxSize: 10 });
  for (const name of ["a", "b", "c"])
    await createRequest(ns.name, name, { instanceGroupManager: "w", resizeBy: 1 });
  for (const name of ["a", "b", "c"])
    expect((await untilState(ns.name, name, ["SUCCEEDED", "FAILED"])).status?.state).toBe("SUCCEEDED");
  await stopAll([operator]);

  const lines = readFileSync(operator.log, "utf8").split("\n").filter(Boolean);
  // The process's own JSON log lines are pino's; anything else on its output is Node's or a library's.
  expect(lines.filter((l) => !l.startsWith("{") && WARNING.test(l))).toEqual([]);

  const changes = new Map<string, number>();
  for (const line of lines) {
    if (!line.startsWith("{")) continue;
    const entry = JSON.parse(line) as { request?: string; reason?: string };
    if (entry.request === undefined || entry.reason === undefined) continue;
    const key = `${entry.request} ${entry.reason}`;
    changes.set(key, (changes.get(key) ?? 0) + 1);
  }
  // Every request was started and succeeded, each logged exactly once.
  for (const name of ["a", "b", "c"]) {
    expect(changes.get(`${name} Succeeded`)).toBe(1);
    expect(changes.get(`${name} ProvisioningStarted`)).toBe(1);
  }
  expect([...changes].filter(([, n]) => n !== 1)).toEqual([]);
});
