// The parameters of a ProvisioningRequest of our class (spec.parameters: Kueue copies the
// ProvisioningRequestConfig's parameters and every Job annotation provreq.kueue.x-k8s.io/<key> there),
// parsed once (pure). An unknown key is not an error: GKE and cluster-autoscaler look up the keys they
// know and ignore the rest, and Kueue copies every provreq.kueue.x-k8s.io/<key> annotation of a Job, so
// failing on one would fail (and Kueue retry, and fail again) a request either of them serves. Unknown
// keys are returned for the caller to warn about, or to refuse when the group asks for strictness. A
// known key with an invalid value is always an error.
import { parseKubeDuration } from "../../api/duration.js";
import { RFC1035_LABEL } from "../../api/primitives.js";

export interface Parameters {
  /** The group asked for: name in the request's namespace, or in another namespace. */
  readonly group?: { readonly namespace: string | undefined; readonly name: string };
  /** requestedRunDuration of the ResizeRequest, seconds (GKE's maxRunDurationSeconds). */
  readonly maxRunDurationSeconds?: number;
  /** The ResizeRequest's queue deadline (a duration string), instead of the group's. */
  readonly maxQueueDuration?: string;
  /** How long provisioned capacity stays booked, ms, instead of the group's. */
  readonly bookingWindowMs?: number;
  /** GKE's ValidUntilSeconds: the request fails if not provisioned this long after its creation. */
  readonly validUntilSeconds?: number;
  /** OBTAINABILITY: among the groups the request may use, the one whose queue gives the earliest ETA. */
  readonly capacitySearchStrategy?: "OBTAINABILITY";
  /**
   * The FutureReservation, by name in the request's own namespace, whose delivered instances serve the
   * request instead of a ResizeRequest of its own (booked.ts).
   */
  readonly futureReservation?: string;
}

/** The parameter naming a booking (Kueue: provreq.kueue.x-k8s.io/futureReservation on a Job). */
export const FUTURE_RESERVATION_PARAMETER = "futureReservation";

export const PARAMETER_NAMES = [
  "instanceGroupManager",
  "maxRunDurationSeconds",
  "maxQueueDuration",
  "bookingWindow",
  "ValidUntilSeconds",
  "noRetry",
  "processorInstance",
  "capacitySearchStrategy",
  FUTURE_RESERVATION_PARAMETER,
] as const;

export type ParsedParameters =
  | { readonly ok: true; readonly value: Parameters; readonly unknown: readonly string[] }
  | { readonly ok: false; readonly message: string };

/** Go's strconv.ParseBool, which cluster-autoscaler reads noRetry with. */
const GO_BOOL = /^(1|t|T|TRUE|true|True|0|f|F|FALSE|false|False)$/;

const NAME = new RegExp(RFC1035_LABEL);
const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const MAX_RUN_SECONDS = 315_576_000_000;
const MAX_QUEUE = "87600h";
const MAX_BOOKING = "168h";

/** A whole number of seconds from 1 to MAX_RUN_SECONDS; undefined (and a problem noted) otherwise. */
function seconds(key: string, text: string, problems: string[]): number | undefined {
  const n = /^[0-9]{1,12}$/.test(text) ? Number(text) : NaN;
  if (n >= 1 && n <= MAX_RUN_SECONDS) return n;
  problems.push(
    `${key} ${JSON.stringify(text)} must be a whole number of seconds from 1 to ${MAX_RUN_SECONDS}`,
  );
  return undefined;
}

/** A duration parameter from 1s to `max`, in ms; undefined (and a problem noted) otherwise. */
function duration(
  key: string,
  text: string,
  max: string,
  example: string,
  problems: string[],
): number | undefined {
  const ms = parseKubeDuration(text);
  if (ms !== undefined && ms >= 1000 && ms <= (parseKubeDuration(max) ?? 0)) return ms;
  problems.push(`${key} ${JSON.stringify(text)} must be a duration from 1s to ${max}, such as ${example}`);
  return undefined;
}

export function parseParameters(raw: Readonly<Record<string, string>> | undefined): ParsedParameters {
  const problems: string[] = [];
  const unknown: string[] = [];
  let value: Parameters = {};
  for (const [key, text] of Object.entries(raw ?? {})) {
    switch (key) {
      case "instanceGroupManager": {
        const [a, b, ...rest] = text.split("/");
        const namespace = b === undefined ? undefined : a;
        const name = b ?? a ?? "";
        if (
          rest.length > 0 ||
          !NAME.test(name) ||
          name.length > 63 ||
          (namespace !== undefined && !NAMESPACE.test(namespace))
        )
          problems.push(`instanceGroupManager ${JSON.stringify(text)} must be NAME or NAMESPACE/NAME`);
        else value = { ...value, group: { namespace, name } };
        break;
      }
      case "maxRunDurationSeconds": {
        const n = seconds(key, text, problems);
        if (n !== undefined) value = { ...value, maxRunDurationSeconds: n };
        break;
      }
      case "ValidUntilSeconds": {
        const n = seconds(key, text, problems);
        if (n !== undefined) value = { ...value, validUntilSeconds: n };
        break;
      }
      case "noRetry":
        // We never retry a failed request ourselves (Kueue makes a new one), so either value is served.
        if (!GO_BOOL.test(text)) problems.push(`noRetry ${JSON.stringify(text)} must be true or false`);
        break;
      case "processorInstance":
        // Which cluster-autoscaler instance processes the request: the only processor of our class is us.
        break;
      case "capacitySearchStrategy": {
        // GKE's strategies: "" (one zone of one node pool) and OBTAINABILITY (see obtainability.ts).
        if (text === "OBTAINABILITY") value = { ...value, capacitySearchStrategy: text };
        else if (text !== "")
          problems.push(`capacitySearchStrategy ${JSON.stringify(text)} must be "" or "OBTAINABILITY"`);
        break;
      }
      case "maxQueueDuration": {
        const ms = duration(key, text, MAX_QUEUE, "30m", problems);
        if (ms !== undefined) value = { ...value, maxQueueDuration: text };
        break;
      }
      case "bookingWindow": {
        const ms = duration(key, text, MAX_BOOKING, "10m", problems);
        if (ms !== undefined) value = { ...value, bookingWindowMs: ms };
        break;
      }
      case FUTURE_RESERVATION_PARAMETER: {
        // A booking is its namespace's: another namespace's is never usable, whoever names it.
        if (text.includes("/"))
          problems.push(
            `futureReservation ${JSON.stringify(text)} must be the NAME of a FutureReservation in the request's own namespace: a booking of another namespace is never usable, its capacity is its owner's`,
          );
        else if (!NAME.test(text) || text.length > 63)
          problems.push(`futureReservation ${JSON.stringify(text)} must be the NAME of a FutureReservation`);
        else value = { ...value, futureReservation: text };
        break;
      }
      default:
        unknown.push(key);
    }
  }
  return problems.length > 0
    ? { ok: false, message: `Invalid parameters: ${problems.join("; ")}.` }
    : { ok: true, value, unknown };
}

/** The words naming unknown parameter keys, for a message or an event. */
export function unknownParametersMessage(unknown: readonly string[]): string {
  return `unknown parameter${unknown.length === 1 ? "" : "s"} ${unknown.map((k) => JSON.stringify(k)).join(", ")} (known: ${PARAMETER_NAMES.join(", ")})`;
}
