// Load: 1,000 requests across 50 groups, created 25 at a time, against one operator process with the
// REST API and Operations on. Per group of 20: 4 provisioned for real (2 of them released after a 1 s
// run duration), 8 over the group's maxSize (FAILED, QUOTA_EXCEEDED at admission), 4 created with
// spec.cancel and 4 cancelled while queued — so every code path runs while the cluster hosts at most
// 200 worker pods. Every request reaches its final state, every target's replicas equal what its
// requests imply, every request has exactly one DONE insert Operation, and the operator's resident
// memory stays bounded (sampled every 500 ms, reported). Soak: repeated until SOAK_MINUTES are over.
import { eventually } from "../support/kube.js";
import { reliabilitySuite } from "../support/reliability-suite.js";
import { report, sampleMemory, settleAndCheck } from "../support/reliability.js";
import { cancelRequest, createRequest } from "../support/resize.js";
import { call, fullAccess, serviceAccountToken, startRestOperator } from "../support/rest.js";

const GROUPS = 50;
const PER_GROUP = 20;
const MAX_SIZE = 4;
const MEMORY_LIMIT_MIB = 512;
const IN_FLIGHT = 25;

const suite = reliabilitySuite();

type Kind = "provision" | "release" | "quota" | "cancel-at-create" | "cancel-queued";
const PLAN: readonly Kind[] = [
  ...Array<Kind>(2).fill("provision"),
  ...Array<Kind>(2).fill("release"),
  ...Array<Kind>(8).fill("quota"),
  ...Array<Kind>(4).fill("cancel-at-create"),
  ...Array<Kind>(4).fill("cancel-queued"),
];

/** Runs `work` over `items` with at most `limit` in flight. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const item = items[next++];
        if (item !== undefined) await work(item);
      }
    }),
  );
}

async function round(index: number): Promise<Record<string, number>> {
  const started = Date.now();
  const ns = await suite.namespace(`rel-load-${index}`, GROUPS, { maxSize: MAX_SIZE });
  const { groups } = ns;
  const token = await serviceAccountToken(ns.name, "reader", fullAccess());
  const rest = await startRestOperator(ns.name, process.env.REDIS_URL ?? "", ["--concurrency=16"]);
  suite.track(rest.process);
  const memory = sampleMemory(rest.process.child.pid);

  const requests = groups.flatMap((g) =>
    // Zero-padded: FIFO order is creation time, then name, and requests created within the same second
    // must queue in PLAN order (a "g0-16-…" would otherwise queue before "g0-2-…").
    PLAN.map((kind, i) => ({ group: g, name: `${g}-${String(i).padStart(2, "0")}-${kind}`, kind })),
  );
  await pool(requests, IN_FLIGHT, async ({ group, name, kind }) => {
    await createRequest(ns.name, name, {
      instanceGroupManager: group,
      resizeBy: kind === "quota" ? MAX_SIZE + 1 : 1,
      ...(kind === "release" && { requestedRunDuration: { seconds: "1" } }),
      ...(kind === "cancel-at-create" && { cancel: true }),
    });
    if (kind === "cancel-queued") await cancelRequest(ns.name, name);
  });
  const createdMs = Date.now() - started;

  const { requests: final } = await settleAndCheck(ns.name, groups, GROUPS * PER_GROUP, 300_000);
  const settledMs = Date.now() - started;
  const stateOf = new Map(final.map((rr) => [rr.metadata.name ?? "", rr.status?.state]));
  for (const { name, kind } of requests) {
    const expected = {
      provision: ["SUCCEEDED"],
      release: ["SUCCEEDED"],
      quota: ["FAILED"],
      "cancel-at-create": ["CANCELLED"],
      // A cancel can only lose the race against a success, which then refuses it.
      "cancel-queued": ["CANCELLED", "SUCCEEDED"],
    }[kind];
    expect(expected).toContain(stateOf.get(name));
  }
  const quota = final.filter((rr) => rr.status?.state === "FAILED");
  for (const rr of quota) expect(rr.status?.error?.errors[0]?.code).toBe("QUOTA_EXCEEDED");

  // Nothing lost on the Operations side either: one DONE insert Operation per request.
  const operationsUrl = `${rest.baseUrl}/compute/v1/projects/${ns.name}/zones/local-a/operations`;
  const inserts = await eventually(
    "one DONE insert Operation per request",
    async () => {
      const targets: string[] = [];
      let pageToken = "";
      do {
        const reply = await call("GET", `${operationsUrl}?maxResults=500&pageToken=${pageToken}`, { token });
        const body = reply.body as {
          items?: { targetLink: string; status: string; operationType: string }[];
          nextPageToken?: string;
        };
        for (const op of body.items ?? [])
          if (op.operationType.endsWith(".insert") && op.status === "DONE")
            targets.push(op.targetLink.split("/").pop() ?? "");
        pageToken = body.nextPageToken ?? "";
      } while (pageToken !== "");
      return targets.length === requests.length ? targets : undefined;
    },
    120_000,
  );
  expect(new Set(inserts).size).toBe(requests.length);

  const samples = memory.stop();
  const maxMiB = Math.max(...samples);
  const finalMiB = samples.at(-1) ?? 0;
  expect(rest.process.exited()).toBe(false);
  report("load memory", {
    rssMaxMiB: Math.round(maxMiB),
    rssFinalMiB: Math.round(finalMiB),
    samples: samples.length,
  });
  expect(maxMiB).toBeLessThan(MEMORY_LIMIT_MIB);
  await rest.process.stop();
  return {
    ms: Date.now() - started,
    createdMs,
    settledMs,
    succeeded: final.filter((rr) => rr.status?.state === "SUCCEEDED").length,
    failed: quota.length,
    cancelled: final.filter((rr) => rr.status?.state === "CANCELLED").length,
    rssMaxMiB: Math.round(maxMiB),
    rssFinalMiB: Math.round(finalMiB),
  };
}

suite.soak(
  `${GROUPS * PER_GROUP} requests across ${GROUPS} groups reach final states; nothing lost; memory bounded`,
  { name: "load", boundedMs: 480_000, fixed: { requests: GROUPS * PER_GROUP, groups: GROUPS } },
  round,
);
