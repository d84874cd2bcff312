// Event reasons and actions are declared once, in a catalogue, and checked when the module loads: a
// misspelt or oversized reason fails the unit tests instead of being rejected by the API server later.
import { EVENT_TYPES, LIMITS, byteLength, type EventType } from "./event.js";

export interface EventDefinition {
  readonly type: EventType;
  /** Why the action was taken: UpperCamelCase, at most 128 bytes (e.g. `ProvisioningFailed`). */
  readonly reason: string;
  /** What was done or attempted: UpperCamelCase, at most 128 bytes (e.g. `Provision`). */
  readonly action: string;
  /** When it is emitted; rendered into docs/events.md. */
  readonly when: string;
}

/**
 * Stricter than the API server (non-empty, ≤128 bytes) on purpose: machine-readable values that
 * tools match on stay in the UpperCamelCase convention of Kubernetes' own reasons.
 */
const UPPER_CAMEL_CASE = /^[A-Z][A-Za-z0-9]*$/;

function problemsOf(name: string, def: EventDefinition): string[] {
  const problems: string[] = [];
  if (!EVENT_TYPES.includes(def.type)) problems.push(`${name}.type must be Normal or Warning`);
  for (const field of ["reason", "action"] as const) {
    const value = def[field];
    if (!UPPER_CAMEL_CASE.test(value))
      problems.push(`${name}.${field} must be UpperCamelCase (got ${JSON.stringify(value)})`);
    if (byteLength(value) > LIMITS[field])
      problems.push(`${name}.${field} must be at most ${LIMITS[field]} bytes`);
  }
  if (def.when.trim().length === 0) problems.push(`${name}.when must say when the event is emitted`);
  return problems;
}

/**
 * Checks and freezes a catalogue. Throws when an entry breaks the rules above or when two entries
 * share type, reason and action (they would be indistinguishable in `kubectl events`).
 *
 * Emit an entry by spreading it: `recorder.emit({ ...events.AttemptFailed, regarding, related, note })`.
 */
export function defineEventCatalog<const C extends Record<string, EventDefinition>>(entries: C): Readonly<C> {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const [name, def] of Object.entries(entries)) {
    problems.push(...problemsOf(name, def));
    const identity = `${def.type}/${def.reason}/${def.action}`;
    const other = seen.get(identity);
    if (other !== undefined) problems.push(`${name} and ${other} are the same event (${identity})`);
    seen.set(identity, name);
  }
  if (problems.length > 0) throw new Error(`invalid event catalogue: ${problems.join("; ")}`);
  for (const def of Object.values(entries)) Object.freeze(def);
  return Object.freeze(entries);
}

/** The Markdown rows of docs/events.md's table for the given catalogues, in declaration order. */
export function catalogTableRows(...catalogs: Readonly<Record<string, EventDefinition>>[]): string[] {
  return catalogs.flatMap((catalog) =>
    Object.values(catalog).map(
      (def) => `| \`${def.reason}\` | \`${def.action}\` | ${def.type} | ${def.when.replaceAll("|", "\\|")} |`,
    ),
  );
}
