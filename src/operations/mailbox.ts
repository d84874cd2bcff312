// One Operation's change channel, read one message at a time by \`OperationStore.wait\`: messages heard
// between two reads are kept in order, and a read ends at the deadline, on abort, or with RECHECK when
// the Operation should be read again (pub/sub is at most once: a change published while the subscriber
// reconnects in a failover is never heard).
import type { Channels } from "./channels.js";

export const RECHECK = Symbol("recheck");

export interface Mailbox {
  /** The next message ("" for a deletion), RECHECK, or undefined at the deadline or on abort. */
  next(): Promise<string | typeof RECHECK | undefined>;
  close(): Promise<void>;
}

export async function openMailbox(
  channels: Channels,
  channel: string,
  options: { deadline: number; recheckMs: number; now: () => number; signal?: AbortSignal | undefined },
): Promise<Mailbox> {
  const { deadline, recheckMs, now, signal } = options;
  /** Messages heard while no one was waiting for the next one. */
  const unread: string[] = [];
  let waiter: ((message: string | undefined) => void) | undefined;
  const listener = (message: string): void => {
    if (waiter) waiter(message);
    else unread.push(message);
  };
  await channels.listen(channel, listener);
  const next = (): Promise<string | typeof RECHECK | undefined> =>
    new Promise((resolve) => {
      const finish = (message: string | typeof RECHECK | undefined): void => {
        waiter = undefined;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve(message);
      };
      const onAbort = (): void => {
        finish(undefined);
      };
      const remaining = Math.max(0, deadline - now());
      const timer =
        remaining > recheckMs
          ? setTimeout(() => {
              finish(RECHECK);
            }, recheckMs)
          : setTimeout(onAbort, remaining);
      signal?.addEventListener("abort", onAbort, { once: true });
      waiter = finish;
      if (signal?.aborted) onAbort();
    });
  return {
    next: () => {
      const heard = unread.shift();
      return heard === undefined ? next() : Promise.resolve(heard);
    },
    close: () => channels.unlisten(channel, listener),
  };
}
