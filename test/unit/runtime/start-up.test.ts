// Start-up discovery retried while the API server does not answer (an operator started during its
// restart), and only then: a real answer, even an error, ends it at once.
import pino from "pino";
import { ApiError, isTransient, isUnreachable, statusError } from "../../../src/runtime/api-errors.js";
import { retryAtStartUp } from "../../../src/runtime/start-up.js";
import { TimeoutError } from "../../../src/runtime/kube-http.js";
import { FakeClock } from "../../support/fake-clock.js";

const refused = (): Error =>
  Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6443"), { code: "ECONNREFUSED" });
const policy = { initialMs: 100, maxMs: 1_000, factor: 2, jitter: 0 };
const log = pino({ level: "silent" });
const options = (giveUpAfterMs: number, clock: FakeClock) => ({
  log,
  what: "the test",
  giveUpAfterMs,
  clock,
  policy,
});

test.each([
  { label: "connection refused", err: refused(), unreachable: true, transient: true },
  {
    label: "reset",
    err: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
    unreachable: true,
    transient: true,
  },
  {
    label: "request deadline",
    err: new TimeoutError("no answer in 30 s"),
    unreachable: true,
    transient: true,
  },
  { label: "503", err: statusError(503, {}), unreachable: false, transient: true },
  { label: "429", err: statusError(429, {}), unreachable: false, transient: true },
  { label: "403", err: statusError(403, {}), unreachable: false, transient: false },
  {
    label: "a Node programming error",
    err: Object.assign(new TypeError("x"), { code: "ERR_INVALID_ARG_TYPE" }),
    unreachable: false,
    transient: false,
  },
  { label: "a plain error", err: new Error("bad document"), unreachable: false, transient: false },
])("$label: unreachable $unreachable, transient $transient", ({ err, unreachable, transient }) => {
  expect(isUnreachable(err)).toBe(unreachable);
  expect(isTransient(err)).toBe(transient);
});

test("refused connections are retried with the backoff until the server answers", async () => {
  const clock = new FakeClock(0);
  let calls = 0;
  const answered = retryAtStartUp(
    () => (++calls < 4 ? Promise.reject(refused()) : Promise.resolve("served")),
    options(60_000, clock),
  );
  await clock.advance(100 + 200 + 399);
  expect(calls).toBe(3);
  await clock.advance(1);
  await expect(answered).resolves.toBe("served");
  expect(calls).toBe(4);
});

/** A call that always fails with `err`, counting its calls. */
function failing(err: () => Error): { call: () => Promise<never>; calls: () => number } {
  let calls = 0;
  return {
    call: () => {
      calls++;
      return Promise.reject(err());
    },
    calls: () => calls,
  };
}

test("an answer that is an error (403) ends it at once", async () => {
  const forbidden = failing(() => statusError(403, {}));
  const clock = new FakeClock(0);
  const outcome = retryAtStartUp(forbidden.call, options(60_000, clock));
  await expect(outcome).rejects.toBeInstanceOf(ApiError);
  expect(forbidden.calls()).toBe(1);
});

test("no answer for longer than giveUpAfterMs: start-up fails with the last error", async () => {
  const down = failing(refused);
  const clock = new FakeClock(0);
  const outcome = retryAtStartUp(down.call, options(2_000, clock)).catch((err: unknown) => err);
  await clock.advance(5_000);
  expect(await outcome).toMatchObject({ code: "ECONNREFUSED" });
  // 0, 100, 300, 700, 1,500 ms; the next (1,000 ms later) would pass the 2 s limit.
  expect(down.calls()).toBe(5);
});
