// Operations' Redis scripts and the store's errors. Every write is one server-side script whose keys
// share the project's hash tag (keys.ts), so replicas never interleave and a Redis Cluster runs it on
// one node; each publishes the change on the channel named like the operation's key.
/** Redis cannot be reached (or did not answer in time): the caller should answer 503 and retry later. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`operations store unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = "StoreUnavailableError";
  }
}

/**
 * A requestId the project already used, within the retention, for another call (another user, method or
 * resize request): the REST edge answers 400 naming the parameter, and nothing changes.
 */
export class RequestIdConflictError extends Error {
  constructor(readonly requestId: string) {
    super(
      `The requestId '${requestId}' was already used for another call: a requestId is bound to the user, the method and the resize request of the call that first used it, and only that call may replay it. Use a new requestId for a new call.`,
    );
    this.name = "RequestIdConflictError";
  }
}

/** Redis's refusals that mean "not now" (a failover, a loading replica), not a bug in what we sent. */
const TRANSIENT_REPLIES = /^(READONLY|CLUSTERDOWN|TRYAGAIN|LOADING|MASTERDOWN|NOREPLICAS|MOVED|ASK)\b/;

/** Any failure of a Redis call → StoreUnavailableError, except Redis refusing a command as wrong. */
export function storeError(err: unknown): unknown {
  if (err instanceof StoreUnavailableError) return err;
  if (err instanceof Error && err.name === "ReplyError" && !TRANSIENT_REPLIES.test(err.message)) return err;
  return new StoreUnavailableError(err);
}

// ARGV[9], the requestId's value, carries the binding of the call (request-id.ts): an existing one is
// returned as it is, for the caller to compare, and nothing is written.
export const CREATE = `
if ARGV[6] == '1' then
  local existing = redis.call('GET', KEYS[3])
  if existing then return {0, existing} end
end
local set
if ARGV[5] == '' then set = redis.call('SET', KEYS[1], ARGV[1], 'NX')
else set = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[5]) end
if not set then return {2, redis.call('GET', KEYS[1])} end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
if ARGV[6] == '1' then redis.call('SET', KEYS[3], ARGV[9], 'PX', ARGV[7]) end
if ARGV[8] == '1' then redis.call('SADD', KEYS[4], ARGV[4]) end
redis.call('PUBLISH', KEYS[1], ARGV[1])
return {1, ''}`;

export const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
if not current then return -1 end
if current ~= ARGV[1] then return 0 end
if ARGV[3] == '' then redis.call('SET', KEYS[1], ARGV[2])
else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
redis.call('PUBLISH', KEYS[1], ARGV[2])
return 1`;

export const DELETE = `
local removed = redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if ARGV[2] ~= '' then redis.call('DEL', KEYS[3]) end
if ARGV[3] ~= '' then redis.call('SREM', KEYS[4], ARGV[3]) end
if removed == 1 then redis.call('PUBLISH', KEYS[1], '') end
return removed`;
