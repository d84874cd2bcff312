// The operator's own logger (its serializers and redaction) writing into memory: one parsed JSON object
// per line, for tests where what a log line carries matters.
import type { Logger } from "pino";
import { createLogger } from "../../src/observability/logger.js";

export type LogLine = Record<string, unknown> & { msg?: string };

export interface LogCapture {
  log: Logger;
  lines: LogLine[];
}

export function captureLog(level = "debug"): LogCapture {
  const lines: LogLine[] = [];
  // pino writes each line in one call to a plain destination.
  const log = createLogger(level, {
    write(line: string) {
      lines.push(JSON.parse(line) as LogLine);
    },
  });
  return { log, lines };
}

/** The serialized `err` of the one line logged with `msg`. */
export function loggedError(lines: readonly LogLine[], msg: string): Record<string, unknown> {
  const matching = lines.filter((l) => l.msg === msg);
  if (matching.length === 0)
    throw new Error(`no log line "${msg}" among: ${lines.map((l) => l.msg).join(", ")}`);
  const err = matching[0]?.err;
  if (typeof err !== "object" || err === null) throw new Error(`log line "${msg}" has no err object`);
  return err as Record<string, unknown>;
}
