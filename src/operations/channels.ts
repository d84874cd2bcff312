// The operation store's pub/sub side: one subscribed connection shared by every `wait` of the process,
// one Redis subscription per channel however many waiters listen on it, dropped with the last one.
import type { RedisClient } from "../redis/clients.js";

export type Listener = (message: string) => void;

export class Channels {
  private readonly listeners = new Map<string, Set<Listener>>();

  /** `call` runs a Redis call the way the store counts its failures (for /readyz). */
  constructor(
    private readonly subscriber: RedisClient,
    private readonly call: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {
    subscriber.on("message", (channel: string, message: string) => {
      for (const listener of this.listeners.get(channel) ?? []) listener(message);
    });
  }

  async listen(channel: string, listener: Listener): Promise<void> {
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
    }
    set.add(listener);
    try {
      // Subscribing again to a channel already subscribed is harmless and confirms the subscription.
      await this.call(() => this.subscriber.subscribe(channel));
    } catch (err) {
      await this.unlisten(channel, listener);
      throw err;
    }
  }

  async unlisten(channel: string, listener: Listener): Promise<void> {
    const set = this.listeners.get(channel);
    set?.delete(listener);
    if (set?.size !== 0) return;
    this.listeners.delete(channel);
    // Failing to unsubscribe (Redis down) only leaves a subscription the reconnect will drop or keep.
    await this.subscriber.unsubscribe(channel).catch(() => undefined);
  }
}
