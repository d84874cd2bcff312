// `kubectl resize` argument parsing: kubectl's flag spellings, defaults, help, and clear errors.
import { DEFAULT_WAIT_TIMEOUT_MS, HELP, parseArgs, UsageError } from "../../../src/plugin/args.js";

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
