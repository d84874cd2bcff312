import {
  Backoff,
  backoffDelay,
  exponentialDelay,
  withJitter,
  type BackoffPolicy,
} from "../../../src/runtime/backoff.js";

const policy: BackoffPolicy = { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0 };

describe("exponentialDelay", () => {
  test("doubles from the initial delay and stops at the cap", () => {
    expect([0, 1, 2, 3, 4, 5].map((a) => exponentialDelay(policy, a))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
  });
  test("stays finite for huge attempt numbers", () => {
    expect(exponentialDelay(policy, 5000)).toBe(1000);
  });
  test("rejects negative attempts", () => {
    expect(() => exponentialDelay(policy, -1)).toThrow(RangeError);
  });
});

describe("withJitter", () => {
  test("adds up to jitter * delay", () => {
    expect(withJitter(1000, 1, () => 0)).toBe(1000);
    expect(withJitter(1000, 1, () => 0.5)).toBe(1500);
    expect(withJitter(1000, 0.2, () => 0.999)).toBeCloseTo(1199.8);
  });
  test("no jitter leaves the delay alone", () => {
    expect(withJitter(1000, 0, () => 0.9)).toBe(1000);
  });
  test("backoffDelay jitters the exponential delay", () => {
    expect(backoffDelay({ ...policy, jitter: 1 }, 2, () => 0.25)).toBe(500);
  });
});

describe("Backoff", () => {
  test("grows with consecutive failures", () => {
    const b = new Backoff(policy, 60_000);
    expect([b.next(0), b.next(10), b.next(20)]).toEqual([100, 200, 400]);
  });
  test("starts over after a healthy period", () => {
    const b = new Backoff(policy, 60_000);
    b.next(0);
    b.next(1);
    expect(b.next(70_000)).toBe(100);
  });
});
