// The parameters of a ProvisioningRequest of our class (spec.parameters: Kueue copies the
// ProvisioningRequestConfig's parameters and every Job annotation provreq.kueue.x-k8s.io/<key> there),
// parsed once (pure). An unknown key is an error rather than ignored: a misspelt parameter would
// otherwise silently provision the wrong thing.
import { parseKubeDuration } from "../api/duration.js";
import { RFC1035_LABEL } from "../api/primitives.js";

export interface Parameters {
  /** The group asked for: name in the request's namespace, or in another namespace. */
  readonly group?: { readonly namespace: string | undefined; readonly name: string };
  /** requestedRunDuration of the ResizeRequest, seconds (GKE's maxRunDurationSeconds). */
  readonly maxRunDurationSeconds?: number;
  /** The ResizeRequest's queue deadline (a duration string), instead of the group's. */
  readonly maxQueueDuration?: string;
  /** How long provisioned capacity stays booked, ms, instead of the group's. */
  readonly bookingWindowMs?: number;
}

export const PARAMETER_NAMES = [
  "instanceGroupManager",
  "maxRunDurationSeconds",
  "maxQueueDuration",
  "bookingWindow",
] as const;

export type ParsedParameters =
  { readonly ok: true; readonly value: Parameters } | { readonly ok: false; readonly message: string };

const NAME = new RegExp(RFC1035_LABEL);
const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const MAX_RUN_SECONDS = 315_576_000_000;
const MAX_QUEUE = "87600h";
const MAX_BOOKING = "168h";

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
        const n = /^[0-9]{1,12}$/.test(text) ? Number(text) : NaN;
        if (!(n >= 1 && n <= MAX_RUN_SECONDS))
          problems.push(
            `maxRunDurationSeconds ${JSON.stringify(text)} must be a whole number of seconds from 1 to ${MAX_RUN_SECONDS}`,
          );
        else value = { ...value, maxRunDurationSeconds: n };
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
      default:
        problems.push(`unknown parameter ${JSON.stringify(key)} (known: ${PARAMETER_NAMES.join(", ")})`);
    }
  }
  return problems.length > 0
    ? { ok: false, message: `Invalid parameters: ${problems.join("; ")}.` }
    : { ok: true, value };
}
