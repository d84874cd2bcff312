// `kubectl resize` argument parsing: kubectl's flag spellings, defaults, help, and clear errors.
import {
  adviceQuery,
  DEFAULT_WAIT_TIMEOUT_MS,
  HELP,
  parseArgs,
  UsageError,
} from "../../../src/plugin/args.js";

const base = {
  namespace: undefined,
  context: undefined,
  kubeconfig: undefined,
  output: undefined,
  waitFor: "succeeded",
  timeoutMs: DEFAULT_WAIT_TIMEOUT_MS,
};

describe("parseArgs()", () => {
  test.each([
    { argv: ["queue", "pool"], invocation: { ...base, command: "queue", name: "pool" } },
    {
      argv: ["queue", "pool", "-n", "team-a", "-o", "wide", "--context=prod"],
      invocation: {
        ...base,
        command: "queue",
        name: "pool",
        namespace: "team-a",
        output: "wide",
        context: "prod",
      },
    },
    {
      argv: ["explain", "-nteam-a", "rr-1", "-ojson", "--kubeconfig", "/tmp/k"],
      invocation: {
        ...base,
        command: "explain",
        name: "rr-1",
        namespace: "team-a",
        output: "json",
        kubeconfig: "/tmp/k",
      },
    },
    {
      argv: ["cancel", "rr-1", "--namespace=x"],
      invocation: { ...base, command: "cancel", name: "rr-1", namespace: "x" },
    },
    {
      argv: ["wait", "rr-1", "--for=final", "--timeout", "1h30m"],
      invocation: { ...base, command: "wait", name: "rr-1", waitFor: "final", timeoutMs: 5_400_000 },
    },
  ])("$argv", ({ argv, invocation }) => {
    expect(parseArgs(argv)).toEqual({ kind: "run", invocation });
  });

  test.each([
    { argv: [], command: undefined },
    { argv: ["--help"], command: undefined },
    { argv: ["help"], command: undefined },
    { argv: ["help", "wait"], command: "wait" },
    { argv: ["queue", "-h"], command: "queue" },
    { argv: ["explain", "x", "--help"], command: "explain" },
  ])("help: $argv", ({ argv, command }) => {
    expect(parseArgs(argv)).toEqual({ kind: "help", command });
  });

  test.each([
    { argv: ["resize", "x"], message: 'unknown command "resize" for "kubectl resize"' },
    { argv: ["queue"], message: "queue needs the name of an InstanceGroupManager" },
    { argv: ["explain"], message: "explain needs the name of a ResizeRequest" },
    { argv: ["cancel", "a", "b"], message: "cancel takes one name, got also: b" },
    { argv: ["queue", "g", "--for=failed"], message: "unknown flag: --for" },
    { argv: ["queue", "g", "--watch"], message: "unknown flag: --watch" },
    {
      argv: ["queue", "g", "-o", "table"],
      message: 'invalid value "table" for --output: must be one of json, yaml, wide',
    },
    {
      argv: ["wait", "r", "--for", "done"],
      message: 'invalid value "done" for --for: must be one of succeeded, failed, cancelled, final',
    },
    {
      argv: ["wait", "r", "--timeout=soon"],
      message: 'invalid value "soon" for --timeout: a duration such as 30s, 5m or 1h',
    },
    { argv: ["queue", "g", "-n"], message: "flag needs an argument: -n" },
  ])("refuses $argv", ({ argv, message }) => {
    expect(() => parseArgs(argv)).toThrow(new UsageError(message, undefined));
  });

  test("every command has a help text naming its usage line", () => {
    for (const command of ["queue", "explain", "cancel", "wait"] as const) {
      expect(HELP[command]).toContain(`Usage:\n  kubectl resize ${command} `);
    }
  });
});

describe("advise", () => {
  const advice = { count: 8, minDurationMs: 72 * 3600_000, maxDurationMs: 72 * 3600_000 };
  test.each([
    {
      argv: ["advise", "--count=8", "--duration=72h"],
      invocation: {
        ...base,
        command: "advise",
        name: "",
        advice: { ...advice, startAfter: undefined, startBefore: undefined },
      },
    },
    {
      argv: [
        "advise",
        "pool",
        "--count",
        "8",
        "--duration=24h",
        "--max-duration=72h",
        "--start-after=2h",
        "-o",
        "json",
      ],
      invocation: {
        ...base,
        command: "advise",
        name: "pool",
        output: "json",
        advice: { ...advice, minDurationMs: 24 * 3600_000, startAfter: "2h", startBefore: undefined },
      },
    },
  ])("$argv", ({ argv, invocation }) => {
    expect(parseArgs(argv)).toEqual({ kind: "run", invocation });
  });

  test.each([
    [["advise", "--duration=1h"], "advise needs --count, the number of instances"],
    [["advise", "--count=2"], "advise needs --duration, how long the run lasts"],
    [
      ["advise", "--count=0", "--duration=1h"],
      'invalid value "0" for --count: a whole number of instances, 1 or more',
    ],
    [
      ["advise", "--count=1.5", "--duration=1h"],
      'invalid value "1.5" for --count: a whole number of instances, 1 or more',
    ],
    [
      ["advise", "--count=2", "--duration=soon"],
      'invalid value "soon" for --duration: a duration such as 30m, 8h or 72h',
    ],
    [
      ["advise", "--count=2", "--duration=2h", "--max-duration=1h"],
      "--max-duration must not be shorter than --duration",
    ],
    [["queue", "pool", "--count=2"], "unknown flag: --count"],
  ])("%j is refused: %s", (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(new UsageError(message, undefined));
  });

  test("adviceQuery resolves times against now: RFC 3339 or a duration from now, 90 days ahead by default", () => {
    const now = Date.parse("2026-03-01T00:00:00Z");
    const q = (startAfter?: string, startBefore?: string) =>
      adviceQuery({ count: 2, minDurationMs: 1000, maxDurationMs: 2000, startAfter, startBefore }, now);
    expect(q()).toEqual({
      count: 2,
      minDurationMs: 1000,
      maxDurationMs: 2000,
      notEarlierThan: now,
      notLaterThan: now + 90 * 24 * 3600_000,
    });
    expect(q("2h", "2026-03-02T09:00:00Z")).toMatchObject({
      notEarlierThan: now + 2 * 3600_000,
      notLaterThan: Date.parse("2026-03-02T09:00:00Z"),
    });
    // A start in the past is now: nothing can be booked behind the clock.
    expect(q("2020-01-01T00:00:00Z").notEarlierThan).toBe(now);
    expect(() => q("tomorrow")).toThrow(/invalid value "tomorrow" for --start-after/);
    expect(() => q("2h", "1h")).toThrow("--start-before must not be earlier than --start-after");
  });
});
