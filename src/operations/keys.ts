// The Redis key layout of Operations, in one place (the store, the start-up migration, the docs):
//   <prefix>{<project>}:op:<loc>:<name>        the Operation as JSON; DONE operations expire
//   <prefix>{<project>}:index:<loc>            sorted set of operation names by insert time (list, paging)
//   <prefix>{<project>}:request-id:<uuid>      requestId → "<loc>/<name> <binding>" (request-id.ts),
//                                              expiring after the retention
//   <prefix>{<project>}:pending:<request>      "<loc>/<name>" of operations the controller still advances
// The `{<project>}` hash tag puts all of a project's keys in one Redis Cluster slot, so every script
// (which touches an operation, its index, its requestId and its pending set) runs on one node, and a
// listing reads one slot. <loc> is a zone's name or `regions/<region>`; names never contain '/', so the
// two cannot collide and the operation name is what follows the last '/'.
// Releases before the Cluster support used the same keys without the hash tag (`<prefix>op:<project>:…`);
// `legacyKey` maps those to this layout (see migrate.ts).
import type { Location } from "../api/location.js";
import type { OperationRef } from "./model.js";

export const DEFAULT_PREFIX = "resize-operator:";

export function locationKey(location: Location): string {
  return location.scope === "zones" ? location.name : `regions/${location.name}`;
}

export function parseLocationKey(key: string): Location {
  return key.startsWith("regions/")
    ? { scope: "regions", name: key.slice("regions/".length) }
    : { scope: "zones", name: key };
}

/** `<loc>/<name>`, the member form of a reference in the pending sets and requestId keys. */
export function member(ref: OperationRef): string {
  return `${locationKey(ref.location)}/${ref.name}`;
}

export function parseMember(project: string, text: string): OperationRef {
  const slash = text.lastIndexOf("/");
  return { project, location: parseLocationKey(text.slice(0, slash)), name: text.slice(slash + 1) };
}

export class OperationKeys {
  constructor(private readonly prefix: string = DEFAULT_PREFIX) {}

  private project(project: string): string {
    return `${this.prefix}{${project}}:`;
  }
  op(ref: OperationRef): string {
    return `${this.project(ref.project)}op:${locationKey(ref.location)}:${ref.name}`;
  }
  index(project: string, location: Location): string {
    return `${this.project(project)}index:${locationKey(location)}`;
  }
  requestId(project: string, requestId: string): string {
    return `${this.project(project)}request-id:${requestId}`;
  }
  pending(project: string, request: string): string {
    return `${this.project(project)}pending:${request}`;
  }

  /** SCAN patterns of the legacy layout, in migration order: operations before the index that lists them. */
  legacyPatterns(): string[] {
    return LEGACY_KINDS.map((kind) => `${this.prefix}${kind}:*`);
  }

  /** The current key of a legacy one (`<prefix><kind>:<project>:<rest>`), or undefined if it is not one. */
  fromLegacy(key: string): { kind: LegacyKind; key: string } | undefined {
    if (!key.startsWith(this.prefix)) return undefined;
    const rest = key.slice(this.prefix.length);
    for (const kind of LEGACY_KINDS) {
      if (!rest.startsWith(`${kind}:`)) continue;
      const tail = rest.slice(kind.length + 1);
      const colon = tail.indexOf(":");
      // Projects are namespace names: never empty, never containing ':' or braces.
      if (colon <= 0 || /[{}]/.test(tail.slice(0, colon))) return undefined;
      return { kind, key: `${this.project(tail.slice(0, colon))}${kind}:${tail.slice(colon + 1)}` };
    }
    return undefined;
  }
}

export const LEGACY_KINDS = ["op", "request-id", "pending", "index"] as const;
export type LegacyKind = (typeof LEGACY_KINDS)[number];
