import { TtlCache } from "../../../src/runtime/ttl-cache.js";
import { FakeClock, flushPromises } from "../../support/fake-clock.js";

/** A lookup whose answers are settled by the test, counting the calls. */
class Lookups<V> {
  readonly pending: { resolve: (v: V) => void; reject: (err: Error) => void }[] = [];

  calls(): number {
    return this.pending.length;
  }

  readonly lookup = (): Promise<V> =>
    new Promise<V>((resolve, reject) => {
      this.pending.push({ resolve, reject });
    });

  /** Settles the nth call (0-based) and lets the cache see it. */
  async resolve(n: number, value: V): Promise<void> {
    this.pending[n]?.resolve(value);
    await flushPromises();
  }

  async reject(n: number, err: Error): Promise<void> {
    this.pending[n]?.reject(err);
    await flushPromises();
  }
}

function cache<V>(
  clock: FakeClock,
  options: { ttlMs?: number; maxEntries?: number; keep?: (v: V) => boolean } = {},
) {
  return new TtlCache<string, V>({
    ttlMs: options.ttlMs ?? 1000,
    maxEntries: options.maxEntries ?? 10,
    clock,
    ...(options.keep && { keep: options.keep }),
  });
}

describe("expiry", () => {
  test.each([
    { after: 0, asks: 1 },
    { after: 999, asks: 1 },
    { after: 1000, asks: 2 },
    { after: 5000, asks: 2 },
  ])("an answer looked up again $after ms after it arrived asks $asks time(s)", async ({ after, asks }) => {
    const clock = new FakeClock(100);
    const c = cache<string>(clock);
    const l = new Lookups<string>();
    const first = c.get("k", l.lookup);
    // The TTL counts from the answer, not from the question.
    await clock.advance(300);
    await l.resolve(0, "a");
    await expect(first).resolves.toBe("a");
    await clock.advance(after);
    void c.get("k", l.lookup);
    expect(l.calls()).toBe(asks);
  });

  test("keys expire independently", async () => {
    const clock = new FakeClock();
    const c = cache<string>(clock);
    const l = new Lookups<string>();
    void c.get("a", l.lookup);
    await l.resolve(0, "A");
    await clock.advance(600);
    void c.get("b", l.lookup);
    await l.resolve(1, "B");
    await clock.advance(600);
    await expect(c.get("b", l.lookup)).resolves.toBe("B");
    expect(l.calls()).toBe(2);
    void c.get("a", l.lookup);
    expect(l.calls()).toBe(3);
  });
});

describe("size bound", () => {
  test.each([
    { maxEntries: 1, keys: ["a", "b"], held: 1, askedAgain: ["a"] },
    { maxEntries: 2, keys: ["a", "b", "c"], held: 2, askedAgain: ["a"] },
    { maxEntries: 3, keys: ["a", "b", "c"], held: 3, askedAgain: [] },
  ])(
    "at most $maxEntries entries: after $keys the oldest are asked again ($askedAgain)",
    async ({ maxEntries, keys, held, askedAgain }) => {
      const clock = new FakeClock();
      const c = cache<string>(clock, { maxEntries });
      const asked: string[] = [];
      const lookup = (key: string) => () => {
        asked.push(key);
        return Promise.resolve(key.toUpperCase());
      };
      for (const key of keys) await c.get(key, lookup(key));
      expect(c.size).toBe(held);
      asked.length = 0;
      // The newest ones first: asking for an evicted key makes room by evicting again.
      for (const key of [...keys].reverse().slice(0, held)) await c.get(key, lookup(key));
      expect(asked).toEqual([]);
      for (const key of askedAgain) await c.get(key, lookup(key));
      expect(asked).toEqual(askedAgain);
      expect(c.size).toBeLessThanOrEqual(maxEntries);
    },
  );

  test("a key looked up again after it expired moves to the back of the line", async () => {
    const clock = new FakeClock();
    const c = cache<string>(clock, { maxEntries: 2 });
    const asked: string[] = [];
    const lookup = (key: string) => () => {
      asked.push(key);
      return Promise.resolve(key);
    };
    await c.get("a", lookup("a"));
    await c.get("b", lookup("b"));
    await clock.advance(1000);
    await c.get("a", lookup("a"));
    await c.get("c", lookup("c"));
    // "b" was the oldest: it went, "a" (refreshed) stayed.
    asked.length = 0;
    await c.get("a", lookup("a"));
    expect(asked).toEqual([]);
    await c.get("b", lookup("b"));
    expect(asked).toEqual(["b"]);
  });
});

describe("concurrent lookups of one key", () => {
  test("are merged into one: every caller gets the one answer", async () => {
    const clock = new FakeClock();
    const c = cache<string>(clock);
    const l = new Lookups<string>();
    const answers = Promise.all([c.get("k", l.lookup), c.get("k", l.lookup), c.get("k", l.lookup)]);
    expect(l.calls()).toBe(1);
    await l.resolve(0, "one");
    await expect(answers).resolves.toEqual(["one", "one", "one"]);
  });

  test("stay merged however long the lookup takes (expiry starts with the answer)", async () => {
    const clock = new FakeClock();
    const c = cache<string>(clock, { ttlMs: 10 });
    const l = new Lookups<string>();
    void c.get("k", l.lookup);
    await clock.advance(60_000);
    void c.get("k", l.lookup);
    expect(l.calls()).toBe(1);
  });

  test("of different keys are not merged", () => {
    const c = cache<string>(new FakeClock());
    const l = new Lookups<string>();
    void c.get("a", l.lookup);
    void c.get("b", l.lookup);
    expect(l.calls()).toBe(2);
  });

  test("an answer not kept serves the callers merged with it, and is asked again next time", async () => {
    const clock = new FakeClock();
    const c = cache<boolean>(clock, { keep: (allowed) => allowed });
    const l = new Lookups<boolean>();
    const merged = Promise.all([c.get("k", l.lookup), c.get("k", l.lookup)]);
    await l.resolve(0, false);
    await expect(merged).resolves.toEqual([false, false]);
    expect(c.size).toBe(0);
    void c.get("k", l.lookup);
    expect(l.calls()).toBe(2);
  });
});

describe("a rejected lookup", () => {
  test("rejects every merged caller and is not cached", async () => {
    const clock = new FakeClock();
    const c = cache<string>(clock);
    const l = new Lookups<string>();
    const first = c.get("k", l.lookup);
    const second = c.get("k", l.lookup);
    await l.reject(0, new Error("unreachable"));
    await expect(first).rejects.toThrow("unreachable");
    await expect(second).rejects.toThrow("unreachable");
    expect(c.size).toBe(0);
    const third = c.get("k", l.lookup);
    expect(l.calls()).toBe(2);
    await l.resolve(1, "answer");
    await expect(third).resolves.toBe("answer");
  });

  test("a lookup that throws at once rejects and leaves nothing behind", async () => {
    const c = cache<string>(new FakeClock());
    await expect(
      c.get("k", () => {
        throw new Error("bad key");
      }),
    ).rejects.toThrow("bad key");
    expect(c.size).toBe(0);
  });

  test("does not remove an answer that replaced it", async () => {
    const clock = new FakeClock();
    const c = cache<string>(clock, { maxEntries: 1 });
    const l = new Lookups<string>();
    const evicted = c.get("k", l.lookup);
    // "x" evicts the pending "k"; a new "k" then evicts "x" and asks again.
    void c.get("x", l.lookup);
    const fresh = c.get("k", l.lookup);
    await l.reject(0, new Error("late failure"));
    await expect(evicted).rejects.toThrow("late failure");
    await l.resolve(2, "fresh");
    await expect(fresh).resolves.toBe("fresh");
    await expect(c.get("k", l.lookup)).resolves.toBe("fresh");
    expect(l.calls()).toBe(3);
  });
});
