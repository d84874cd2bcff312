// Two duration encodings meet in this API: the Google `Duration` object of the REST API
// (`requestedRunDuration`, Compute Engine v1) and the Kubernetes duration string (`"10m"`) used by
// InstanceGroupManager settings, as kubectl users expect.
import { z } from "zod";
import { celString, rule } from "./meta.js";

/** Upper bound of `Duration.seconds` (10,000 years), as Compute Engine's `Duration` allows. */
export const MAX_DURATION_SECONDS = 315_576_000_000;
const MAX_NANOS = 999_999_999;
const SECONDS_DIGITS = String(MAX_DURATION_SECONDS).length;

const DurationSeconds = rule(
  z
    .string()
    .max(SECONDS_DIGITS)
    .regex(/^(0|[1-9][0-9]*)$/, { message: "seconds must be a decimal integer string (int64)" })
    .meta({
      format: "int64",
      description: `Whole seconds of the duration, as a decimal string (int64), from 0 to ${MAX_DURATION_SECONDS} inclusive (about 10,000 years).`,
    }),
  {
    // The pattern check reports malformed values; the guard keeps int() from failing on them.
    cel: `!self.matches('^[0-9]{1,${SECONDS_DIGITS}}$') || int(self) <= ${MAX_DURATION_SECONDS}`,
    message: `seconds must be between 0 and ${MAX_DURATION_SECONDS}`,
    test: (v) => !/^[0-9]{1,12}$/.test(v) || Number(v) <= MAX_DURATION_SECONDS,
  },
);

const DurationNanos = z.int32().min(0).max(MAX_NANOS).meta({
  description:
    "Fraction of a second at nanosecond resolution, from 0 to 999999999. A duration shorter than one second has seconds 0 and a positive nanos.",
});

/**
 * A span of time as whole seconds plus nanoseconds (the Google `Duration` JSON object). Either part
 * may be omitted and counts as zero, as proto3 JSON encoders omit zero values; the duration as a
 * whole must be positive.
 */
export const Duration = rule(
  z.object({ seconds: DurationSeconds.optional(), nanos: DurationNanos.optional() }).meta({
    schemaId: "Duration",
    description:
      "A span of time: whole seconds plus a fraction at nanosecond resolution. Either part may be omitted and then counts as zero; the total must be positive.",
  }),
  {
    cel: "(has(self.seconds) && self.seconds != '0') || (has(self.nanos) && self.nanos > 0)",
    message: "a duration must be positive: under one second use seconds 0 and nanos > 0",
    test: (d) => (d.seconds !== undefined && d.seconds !== "0") || (d.nanos ?? 0) > 0,
  },
);
export type Duration = z.infer<typeof Duration>;

/** Milliseconds of a `Duration`, rounded down; exact for every allowed value (< 2^53 ms). */
export function durationToMillis(d: Duration): number {
  return Number(d.seconds ?? "0") * 1000 + Math.floor((d.nanos ?? 0) / 1_000_000);
}

const KUBE_DURATION = /^([0-9]+(\.[0-9]+)?(h|ms|m|s|us|ns))+$/;
const UNIT_MS: Readonly<Record<string, number>> = {
  h: 3_600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
  us: 1e-3,
  ns: 1e-6,
};

/** Milliseconds of a Kubernetes duration string such as `10m` or `1h30m`; undefined when malformed. */
export function parseKubeDuration(text: string): number | undefined {
  if (!KUBE_DURATION.test(text)) return undefined;
  let total = 0;
  for (const [, amount, , unit] of text.matchAll(/([0-9]+(\.[0-9]+)?)(h|ms|m|s|us|ns)/g)) {
    total += Number(amount) * (UNIT_MS[unit ?? ""] ?? 0);
  }
  return total;
}

/** A Kubernetes duration string bounded to [min, max], checked identically by CEL and by zod. */
export function kubeDuration(bounds: { readonly min: string; readonly max: string }) {
  const min = parseKubeDuration(bounds.min) ?? 0;
  const max = parseKubeDuration(bounds.max) ?? 0;
  return rule(
    z.string().max(64).regex(KUBE_DURATION, {
      message: "must be a duration such as 90s, 10m or 1h30m (units h, m, s, ms, us, ns)",
    }),
    {
      cel: `!self.matches(${celString(KUBE_DURATION.source)}) || (duration(self) >= duration('${bounds.min}') && duration(self) <= duration('${bounds.max}'))`,
      message: `must be between ${bounds.min} and ${bounds.max}`,
      test: (v) => {
        const ms = parseKubeDuration(v);
        return ms === undefined || (ms >= min && ms <= max);
      },
    },
  );
}

/**
 * A span of milliseconds for people, in the Kubernetes duration notation it could be written back in:
 * whole seconds, zero parts left out (`10m`, `1h30m`, `95s` → `1m35s`); under a second, milliseconds.
 */
export function formatDuration(millis: number): string {
  if (millis > 0 && millis < 1000) return `${Math.round(millis)}ms`;
  const total = Math.round(millis / 1000);
  const parts: [number, string][] = [
    [Math.floor(total / 3600), "h"],
    [Math.floor((total % 3600) / 60), "m"],
    [total % 60, "s"],
  ];
  const text = parts
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n}${unit}`)
    .join("");
  return text === "" ? "0s" : text;
}
