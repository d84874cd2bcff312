// Start-up migration of Operations written by releases before the hash-tagged layout (keys.ts).
// Each legacy key is copied to its new name and then deleted. A copy never overwrites (SET NX, ZADD
// and SADD merge), so running it twice, from two replicas at once, or after a crash between copy and
// delete, loses nothing and duplicates nothing. Operations go first and the index last, because a
// listing drops index entries whose operation it cannot read. Not one script per key: in a Cluster the
// old and the new key live in different slots.
import { Cluster } from "ioredis";
import type { RedisClient } from "../redis/clients.js";
import { OperationKeys, type LegacyKind } from "./keys.js";

export interface MigrationResult {
  /** Legacy keys moved, by kind. */
  readonly moved: Record<LegacyKind, number>;
}

/** Copies one legacy key to `target` (merging), then deletes it. */
async function moveKey(redis: RedisClient, kind: LegacyKind, source: string, target: string): Promise<void> {
  if (kind === "op" || kind === "request-id") {
    const [value, pttl] = await Promise.all([redis.get(source), redis.pttl(source)]);
    if (value === null) return;
    // -1: no expiry (an operation not DONE yet); a positive TTL carries over.
    if (pttl > 0) await redis.set(target, value, "PX", pttl, "NX");
    else await redis.set(target, value, "NX");
  } else if (kind === "pending") {
    const members = await redis.smembers(source);
    if (members.length > 0) await redis.sadd(target, ...members);
  } else {
    const flat = await redis.zrange(source, "0", "-1", "WITHSCORES");
    // ZADD takes score, member pairs; WITHSCORES answers member, score pairs.
    const pairs: string[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) pairs.push(flat[i + 1] ?? "0", flat[i] ?? "");
    if (pairs.length > 0) await redis.zadd(target, ...pairs);
  }
  await redis.del(source);
}

/** Every key matching `pattern` on every master (SCAN is per node in a Cluster). */
async function scanAll(redis: RedisClient, pattern: string): Promise<string[]> {
  const nodes = redis instanceof Cluster ? redis.nodes("master") : [redis];
  const keys: string[] = [];
  for (const node of nodes) {
    let cursor = "0";
    do {
      const [next, batch] = await node.scan(cursor, "MATCH", pattern, "COUNT", 500);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== "0");
  }
  return keys;
}

export async function migrateLegacyKeys(redis: RedisClient, prefix?: string): Promise<MigrationResult> {
  const keys = new OperationKeys(prefix);
  const moved: Record<LegacyKind, number> = { op: 0, "request-id": 0, pending: 0, index: 0 };
  for (const pattern of keys.legacyPatterns()) {
    for (const source of await scanAll(redis, pattern)) {
      const legacy = keys.fromLegacy(source);
      if (!legacy) continue;
      await moveKey(redis, legacy.kind, source, legacy.key);
      moved[legacy.kind]++;
    }
  }
  return { moved };
}
