// The command line of `kubectl resize` (kubectl plugin discovery runs the `kubectl-resize` bin with the
// words after `kubectl resize`). Flags follow kubectl's spelling: `-n/--namespace`, `--context`,
// `--kubeconfig`, `-o/--output`, `--for`, `--timeout`; `--flag=value` and `--flag value` both work.
import { parseKubeDuration } from "../api/duration.js";
import type { AdviceQuery } from "../booking/advice.js";

export const COMMANDS = ["queue", "explain", "cancel", "wait", "advise"] as const;
export type CommandName = (typeof COMMANDS)[number];
export const OUTPUTS = ["json", "yaml", "wide"] as const;
export type Output = (typeof OUTPUTS)[number];
export const WAIT_FOR = ["succeeded", "failed", "cancelled", "final"] as const;
export type WaitFor = (typeof WAIT_FOR)[number];

/** What `advise` asks, as typed: resolved against the clock by adviceQuery(). */
export interface AdviceArgs {
  readonly count: number;
  readonly minDurationMs: number;
  readonly maxDurationMs: number;
  /** RFC 3339, or a duration from now (`2h`); default now. */
  readonly startAfter: string | undefined;
  /** RFC 3339, or a duration from now; default 90 days after startAfter. */
  readonly startBefore: string | undefined;
}

export interface Invocation {
  readonly command: CommandName;
  /** The group (queue; advise, where "" means every group) or the request (explain, cancel, wait). */
  readonly name: string;
  readonly namespace: string | undefined;
  readonly context: string | undefined;
  readonly kubeconfig: string | undefined;
  readonly output: Output | undefined;
  readonly waitFor: WaitFor;
  readonly timeoutMs: number;
  /** advise's question. */
  readonly advice?: AdviceArgs;
}

export type Parsed =
  | { readonly kind: "run"; readonly invocation: Invocation }
  | { readonly kind: "help"; readonly command: CommandName | undefined };

/** Bad input: kubectl prints `error: <message>` and exits 1. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command: CommandName | undefined,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

const VALUED: Readonly<Record<string, string>> = {
  "-n": "namespace",
  "--namespace": "namespace",
  "--context": "context",
  "--kubeconfig": "kubeconfig",
  "-o": "output",
  "--output": "output",
  "--for": "for",
  "--timeout": "timeout",
  "--count": "count",
  "--duration": "duration",
  "--max-duration": "max-duration",
  "--start-after": "start-after",
  "--start-before": "start-before",
};
/** Flags only some commands take. */
const ONLY: Readonly<Record<string, readonly CommandName[]>> = {
  output: ["queue", "explain", "cancel", "wait", "advise"],
  for: ["wait"],
  timeout: ["wait"],
  count: ["advise"],
  duration: ["advise"],
  "max-duration": ["advise"],
  "start-after": ["advise"],
  "start-before": ["advise"],
};

/** How far ahead advise looks for a start by default: the longest window a booking may have. */
const DEFAULT_ADVICE_RANGE_MS = 90 * 24 * 3600_000;

function durationFlag(flags: ReadonlyMap<string, string>, key: string): number | undefined {
  const text = flags.get(key);
  if (text === undefined) return undefined;
  const ms = parseKubeDuration(text);
  if (ms === undefined || ms <= 0)
    throw new UsageError(`invalid value "${text}" for --${key}: a duration such as 30m, 8h or 72h`, "advise");
  return ms;
}

function adviceArgs(flags: ReadonlyMap<string, string>): AdviceArgs {
  const countText = flags.get("count");
  if (countText === undefined)
    throw new UsageError("advise needs --count, the number of instances", "advise");
  const count = Number(countText);
  if (!Number.isInteger(count) || count < 1)
    throw new UsageError(
      `invalid value "${countText}" for --count: a whole number of instances, 1 or more`,
      "advise",
    );
  const minDurationMs = durationFlag(flags, "duration");
  if (minDurationMs === undefined)
    throw new UsageError("advise needs --duration, how long the run lasts", "advise");
  const maxDurationMs = durationFlag(flags, "max-duration") ?? minDurationMs;
  if (maxDurationMs < minDurationMs)
    throw new UsageError("--max-duration must not be shorter than --duration", "advise");
  return {
    count,
    minDurationMs,
    maxDurationMs,
    startAfter: flags.get("start-after"),
    startBefore: flags.get("start-before"),
  };
}

/** A moment as advise takes it: RFC 3339, or a duration from `now`. */
function moment(text: string, flag: string, now: number): number {
  const fromNow = parseKubeDuration(text);
  if (fromNow !== undefined) return now + fromNow;
  const at = /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at))
    throw new UsageError(
      `invalid value "${text}" for ${flag}: an RFC 3339 time or a duration from now (2h)`,
      "advise",
    );
  return at;
}

/** advise's question resolved against `now`: the range of starts, both ends included. */
export function adviceQuery(a: AdviceArgs, now: number): AdviceQuery {
  const notEarlierThan =
    a.startAfter === undefined ? now : Math.max(now, moment(a.startAfter, "--start-after", now));
  const notLaterThan =
    a.startBefore === undefined
      ? notEarlierThan + DEFAULT_ADVICE_RANGE_MS
      : moment(a.startBefore, "--start-before", now);
  if (notLaterThan < notEarlierThan)
    throw new UsageError("--start-before must not be earlier than --start-after", "advise");
  return {
    count: a.count,
    minDurationMs: a.minDurationMs,
    maxDurationMs: a.maxDurationMs,
    notEarlierThan,
    notLaterThan,
  };
}

/** kubectl's default for `kubectl wait --timeout`. */
export const DEFAULT_WAIT_TIMEOUT_MS = 30_000;

function oneOf<T extends string>(
  value: string,
  allowed: readonly T[],
  flag: string,
  command?: CommandName,
): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`invalid value "${value}" for ${flag}: must be one of ${allowed.join(", ")}`, command);
}

export function parseArgs(argv: readonly string[]): Parsed {
  const words: string[] = [];
  const flags = new Map<string, string>();
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "-h" || arg === "--help") {
      help = true;
      continue;
    }
    if (!arg.startsWith("-") || arg === "-") {
      words.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(0, eq) : /^-[no]./.test(arg) ? arg.slice(0, 2) : arg;
    const key = VALUED[flag];
    if (key === undefined) {
      throw new UsageError(`unknown flag: ${flag}`, commandOf(words[0]));
    }
    let value: string | undefined;
    if (eq > 0) value = arg.slice(eq + 1);
    else if (flag !== arg)
      value = arg.slice(2); // -nteam-a, -owide
    else value = argv[++i];
    if (value === undefined) throw new UsageError(`flag needs an argument: ${flag}`, commandOf(words[0]));
    flags.set(key, value);
  }
  const [first, name, ...extra] = words;
  const command = first === undefined || first === "help" ? undefined : commandOf(first);
  if (first === "help") return { kind: "help", command: commandOf(name) };
  if (first !== undefined && command === undefined) {
    throw new UsageError(`unknown command "${first}" for "kubectl resize"`, undefined);
  }
  if (help || command === undefined) return { kind: "help", command };
  for (const [key, commands] of Object.entries(ONLY)) {
    if (flags.has(key) && !commands.includes(command)) {
      throw new UsageError(`unknown flag: --${key}`, command);
    }
  }
  const what = command === "queue" ? "an InstanceGroupManager" : "a ResizeRequest";
  if (name === undefined && command !== "advise")
    throw new UsageError(`${command} needs the name of ${what}`, command);
  if (extra.length > 0)
    throw new UsageError(`${command} takes one name, got also: ${extra.join(" ")}`, command);
  const output = flags.get("output");
  const timeout = flags.get("timeout");
  const timeoutMs = timeout === undefined ? DEFAULT_WAIT_TIMEOUT_MS : parseKubeDuration(timeout);
  if (timeoutMs === undefined) {
    throw new UsageError(
      `invalid value "${timeout ?? ""}" for --timeout: a duration such as 30s, 5m or 1h`,
      command,
    );
  }
  return {
    kind: "run",
    invocation: {
      command,
      name: name ?? "",
      namespace: flags.get("namespace"),
      context: flags.get("context"),
      kubeconfig: flags.get("kubeconfig"),
      output: output === undefined ? undefined : oneOf(output, OUTPUTS, "--output", command),
      waitFor: oneOf(flags.get("for") ?? "succeeded", WAIT_FOR, "--for", command),
      timeoutMs,
      ...(command === "advise" && { advice: adviceArgs(flags) }),
    },
  };
}

function commandOf(word: string | undefined): CommandName | undefined {
  return COMMANDS.find((c) => c === word);
}

const GLOBAL_FLAGS = `Flags (every command):
  -n, --namespace NAME   namespace (default: the context's namespace, else "default")
      --context NAME     kubeconfig context to use
      --kubeconfig FILE  kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)
  -o, --output FORMAT    json, yaml or wide
  -h, --help             show help`;

export const HELP: Readonly<Record<CommandName | "root", string>> = {
  root: `kubectl resize: the queue of resize requests, why a request is still pending and when it will run.

Usage:
  kubectl resize queue GROUP        the queue of an InstanceGroupManager, with each request's ETA
  kubectl resize explain REQUEST    a ResizeRequest's state, position, what it waits for, ETA, events
  kubectl resize cancel REQUEST     cancel a ResizeRequest (sets spec.cancel=true)
  kubectl resize wait REQUEST       wait until a ResizeRequest reaches a state
  kubectl resize advise [GROUP]     when and where a FutureReservation of N instances would be approved

Use "kubectl resize <command> --help" for more about a command.

${GLOBAL_FLAGS}
`,
  queue: `Show the queue of an InstanceGroupManager: each waiting request in first-come first-served order,
its size, how long it has waited and its ETA (when its instances are expected to be ready) with the
basis of the ETA: exact (capacity frees at known release times), estimated, or unknown (and why).

Usage:
  kubectl resize queue GROUP [-n NAMESPACE] [-o json|yaml|wide]

-o wide adds what each request waits for and when its attempt is expected to start.

Examples:
  kubectl resize queue gpu-pool -n team-a
  kubectl resize queue gpu-pool -o wide

${GLOBAL_FLAGS}
`,
  explain: `Explain a ResizeRequest: its state, its position in its group's queue, what it waits for, its ETA
and how it was derived, the last attempt's error, and its recent events.

Usage:
  kubectl resize explain REQUEST [-n NAMESPACE] [-o json|yaml]

Examples:
  kubectl resize explain train-8-gpus -n team-a

${GLOBAL_FLAGS}
`,
  cancel: `Cancel a ResizeRequest: sets spec.cancel=true (a merge patch). A queued request leaves the queue,
a partial scale-up is rolled back; a request already in a final state is left as it is.

Usage:
  kubectl resize cancel REQUEST [-n NAMESPACE] [-o json|yaml]

Examples:
  kubectl resize cancel train-8-gpus -n team-a

${GLOBAL_FLAGS}
`,
  wait: `Wait until a ResizeRequest reaches a state. Exits 0 when it does; exits 1 with a message on stderr
when the timeout passes first, or when the request reached another final state (it never leaves one).

Usage:
  kubectl resize wait REQUEST [--for=succeeded|failed|cancelled|final] [--timeout=DURATION]

Flags:
      --for STATE         succeeded (default), failed, cancelled, or final (any of them)
      --timeout DURATION  how long to wait, e.g. 30s, 5m, 1h (default 30s, as kubectl wait)

Examples:
  kubectl resize wait train-8-gpus --for=succeeded --timeout=10m

${GLOBAL_FLAGS}
`,
  advise: `Advise when to book: the earliest window in which COUNT more instances fit under each group's maxSize
for at least --duration (and up to --max-duration), starting between --start-after and --start-before,
counting the group's instances, its running requests' releases and its approved FutureReservations —
the rule a FutureReservation is approved by. Best first: the earliest start, then the longest window.
Every group of the namespace, or only GROUP.

Usage:
  kubectl resize advise [GROUP] --count=N --duration=DURATION [--max-duration=DURATION]
      [--start-after=TIME] [--start-before=TIME] [-n NAMESPACE] [-o json|yaml]

Flags:
      --count N                 instances to book (required)
      --duration DURATION       the shortest acceptable window, e.g. 8h, 72h (required)
      --max-duration DURATION   the longest window wanted (default: --duration)
      --start-after TIME        earliest start: RFC 3339, or a duration from now such as 2h (default now)
      --start-before TIME       latest start (default: 90 days after --start-after)

Examples:
  kubectl resize advise --count=8 --duration=72h -n team-a
  kubectl resize advise gpu-pool --count=8 --duration=24h --max-duration=72h --start-after=2026-03-02T09:00:00Z

${GLOBAL_FLAGS}
`,
};
