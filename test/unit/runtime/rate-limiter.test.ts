import { FakeClock } from "../../support/fake-clock.js";
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
} from "../../../src/runtime/rate-limiter.js";

describe("ItemExponentialFailureRateLimiter", () => {
  test("5 ms doubling per failure, per item, capped at 1000 s", () => {
    const l = new ItemExponentialFailureRateLimiter();
    const delays = Array.from({ length: 20 }, () => l.when("a"));
    expect(delays.slice(0, 5)).toEqual([5, 10, 20, 40, 80]);
    expect(delays[19]).toBe(1_000_000);
    expect(l.when("b")).toBe(5);
    expect(l.numRequeues("a")).toBe(20);
    expect(l.numRequeues("b")).toBe(1);
  });
  test("forget restarts the backoff of one item only", () => {
    const l = new ItemExponentialFailureRateLimiter(1, 100);
    l.when("a");
    l.when("a");
    l.when("b");
    l.forget("a");
    expect(l.numRequeues("a")).toBe(0);
    expect(l.when("a")).toBe(1);
    expect(l.when("b")).toBe(2);
  });
  test("rejects nonsense bounds", () => {
    expect(() => new ItemExponentialFailureRateLimiter(0, 1)).toThrow(RangeError);
    expect(() => new ItemExponentialFailureRateLimiter(10, 1)).toThrow(RangeError);
  });
});

describe("BucketRateLimiter", () => {
  test("the burst passes at once, then one token per 1/qps", () => {
    const clock = new FakeClock();
    const l = new BucketRateLimiter(clock, 10, 3);
    expect([l.when("a"), l.when("b"), l.when("c")]).toEqual([0, 0, 0]);
    // Reservations queue up behind each other: 100 ms, 200 ms, 300 ms.
    expect([l.when("d"), l.when("e"), l.when("f")]).toEqual([100, 200, 300]);
  });
  test("tokens refill with time, up to the burst", async () => {
    const clock = new FakeClock();
    const l = new BucketRateLimiter(clock, 10, 2);
    l.when("a");
    l.when("a");
    await clock.advance(10_000);
    expect([l.when("a"), l.when("a"), l.when("a")]).toEqual([0, 0, 100]);
  });
  test("is not per item", () => {
    const l = new BucketRateLimiter(new FakeClock(), 1, 1);
    l.when("a");
    l.forget("a");
    expect(l.when("b")).toBe(1000);
    expect(l.numRequeues("a")).toBe(0);
  });
  test("rejects nonsense settings", () => {
    expect(() => new BucketRateLimiter(new FakeClock(), 0, 1)).toThrow(RangeError);
    expect(() => new BucketRateLimiter(new FakeClock(), 1, 0)).toThrow(RangeError);
  });
});

describe("MaxOfRateLimiter", () => {
  test("takes the longest wait and tells every limiter", () => {
    const clock = new FakeClock();
    const item = new ItemExponentialFailureRateLimiter(5, 1000);
    const bucket = new BucketRateLimiter(clock, 10, 1);
    const l = new MaxOfRateLimiter(item, bucket);
    expect(l.when("a")).toBe(5); // bucket: 0, item: 5
    expect(l.when("a")).toBe(100); // bucket: 100, item: 10
    expect(l.numRequeues("a")).toBe(2);
    l.forget("a");
    expect(item.numRequeues("a")).toBe(0);
  });
  test("needs at least one limiter", () => {
    expect(() => new MaxOfRateLimiter()).toThrow(RangeError);
  });
  test("the default controller limiter: per-item backoff under an overall 10 qps / 100 burst", () => {
    const l = defaultControllerRateLimiter(new FakeClock());
    expect(l.when("x")).toBe(5);
    expect(l.when("x")).toBe(10);
    for (let i = 0; i < 98; i++) l.when(`k${i}`);
    // 101st call: the burst is used up, so the bucket's 100 ms beats the fresh item's 5 ms.
    expect(l.when("fresh")).toBe(100);
  });
});
