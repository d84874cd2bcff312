// Moves one hash slot of a running Redis Cluster (testbed/redis-topologies.ts) to another master, as
// an operator's resharding (`redis-cli --cluster reshard`) does, key by key with MIGRATE: while it
// runs, clients meet ASK redirections (a key already moved) and TRYAGAIN (a multi-key command whose
// keys are split between the two nodes), then MOVED once the slot is the target's. The keys are
// moved in small batches with a pause between them, so the window lasts long enough for the
// clients' calls to land in it.
import { setTimeout as sleep } from "node:timers/promises";
import { command, type RedisClusterSet } from "./redis-topologies.js";

const BATCH = 2;
const PAUSE_MS = 100;

async function nodeId(port: number): Promise<string> {
  const id = await command(port, "CLUSTER", "MYID");
  if (typeof id !== "string") throw new Error(`no CLUSTER MYID from ${port}`);
  return id;
}

async function must(port: number, ...args: string[]): Promise<unknown> {
  const reply = await command(port, ...args);
  if (reply === undefined) throw new Error(`${args.join(" ")} failed on ${port}`);
  return reply;
}

export interface SlotMove {
  readonly slot: number;
  readonly from: number;
  readonly to: number;
  readonly keys: number;
  readonly ms: number;
}

/** Moves the slot of `key` (e.g. a hash tag `{project}`) from its master to another master. */
export async function moveSlot(set: RedisClusterSet, key: string): Promise<SlotMove> {
  const started = Date.now();
  const from = await set.masterOf(key);
  const to = (await set.masters()).find((p) => p !== from);
  if (from === undefined || to === undefined) throw new Error(`no master to move ${key} from or to`);
  const slot = String(await must(from, "CLUSTER", "KEYSLOT", key));
  const [fromId, toId] = [await nodeId(from), await nodeId(to)];
  // The order redis-cli uses: importing first, so a client sent on by ASK is accepted by the target.
  await must(to, "CLUSTER", "SETSLOT", slot, "IMPORTING", fromId);
  await must(from, "CLUSTER", "SETSLOT", slot, "MIGRATING", toId);
  let keys = 0;
  for (;;) {
    const batch = await must(from, "CLUSTER", "GETKEYSINSLOT", slot, String(BATCH));
    if (!Array.isArray(batch) || batch.length === 0) break;
    const names = batch.map(String);
    await must(from, "MIGRATE", "127.0.0.1", String(to), "", "0", "5000", "REPLACE", "KEYS", ...names);
    keys += names.length;
    await sleep(PAUSE_MS);
  }
  // The target first, then the source, then every other master (they would learn it by gossip).
  await must(to, "CLUSTER", "SETSLOT", slot, "NODE", toId);
  await must(from, "CLUSTER", "SETSLOT", slot, "NODE", toId);
  for (const port of await set.masters())
    if (port !== from && port !== to) await command(port, "CLUSTER", "SETSLOT", slot, "NODE", toId);
  return { slot: Number(slot), from, to, keys, ms: Date.now() - started };
}
