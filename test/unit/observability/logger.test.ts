// createLogger: a caught error logged as `{ err }` keeps its type, stack and cause, and redaction still
// reaches the error's own fields.
import { captureLog, loggedError } from "../../support/log-capture.js";

test("an error logged as { err } keeps its type, stack and the cause's message and stack", () => {
  const { log, lines } = captureLog();
  const cause = new TypeError("socket hang up");
  log.error({ err: new RangeError("lease renew failed", { cause }) }, "failed");
  const err = loggedError(lines, "failed");
  expect(err.type).toBe("RangeError");
  expect(err.message).toBe("lease renew failed: socket hang up");
  expect(err.stack).toContain("RangeError: lease renew failed\n    at ");
  expect(err.stack).toContain("caused by: TypeError: socket hang up\n    at ");
});

test("redaction applies to the serialized error's fields", () => {
  const { log, lines } = captureLog();
  const err = Object.assign(new Error("login refused"), { password: "hunter2", token: "t0ken" });
  log.warn({ err }, "refused");
  expect(loggedError(lines, "refused")).toMatchObject({ password: "[redacted]", token: "[redacted]" });
  expect(JSON.stringify(lines)).not.toMatch(/hunter2|t0ken/);
});
