// The grammar of a group's target reference, written once: the CRD schema enforces it (so the API server
// rejects anything else before the admission policy runs), the admission policy splits the apiVersion at
// its only `/`, and the operator builds every URL from the parts parsed here, never from the user's
// string. With the grammar below an accepted apiVersion has exactly one reading, which is what lets the
// policy authorize the same group and resource that the operator then calls (a string such as
// `apps/../karpenter.sh/v1` is refused instead of being resolved by the URL into another group).

/** A DNS-1123 subdomain: the grammar of an API group (`apps`, `karpenter.sh`), at most 253 characters. */
const DNS_SUBDOMAIN = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
/** A DNS-1035 label: the grammar of an API version (`v1`, `v1beta2`), at most 63 characters. */
const DNS_LABEL = "[a-z]([-a-z0-9]*[a-z0-9])?";

export const API_GROUP_MAX = 253;
export const API_VERSION_PART_MAX = 63;
/** `group/version`, or `version` alone for the core group. */
export const API_VERSION_PATTERN = new RegExp(`^(${DNS_SUBDOMAIN}/)?${DNS_LABEL}$`);
export const API_VERSION_MAX = API_GROUP_MAX + 1 + API_VERSION_PART_MAX;
/** A kind as Go types spell it: a letter, then letters and digits (`StatefulSet`, `MachineDeployment`). */
export const KIND_PATTERN = /^[A-Za-z][A-Za-z0-9]*$/;
export const KIND_MAX = 63;

/** An apiVersion split into its API group ("" for the core group) and version. */
export interface GroupVersion {
  readonly group: string;
  readonly version: string;
}

/** The group and version of an apiVersion, or undefined when it is not `group/version` or `version`. */
export function parseApiVersion(apiVersion: string): GroupVersion | undefined {
  if (apiVersion.length > API_VERSION_MAX || !API_VERSION_PATTERN.test(apiVersion)) return undefined;
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  if (group.length > API_GROUP_MAX || version.length > API_VERSION_PART_MAX) return undefined;
  return { group, version };
}

/** Whether a kind is spelled as Kubernetes kinds are. */
export function isKind(kind: string): boolean {
  return kind.length <= KIND_MAX && KIND_PATTERN.test(kind);
}

/** Why a target reference is refused, in words for a condition, or undefined when it is well formed. */
export function targetRefProblem(ref: {
  readonly apiVersion: string;
  readonly kind: string;
}): string | undefined {
  if (!parseApiVersion(ref.apiVersion)) {
    return `spec.targetRef.apiVersion ${JSON.stringify(ref.apiVersion)} is not an API version (GROUP/VERSION such as apps/v1, or VERSION alone for the core group)`;
  }
  if (!isKind(ref.kind))
    return `spec.targetRef.kind ${JSON.stringify(ref.kind)} is not a kind (letters and digits)`;
  return undefined;
}

/**
 * The discovery path of a group version: /api/v1 for the core group, /apis/GROUP/VERSION otherwise, from
 * the parsed parts, each percent-encoded. Throws on a string the grammar refuses: no caller may turn one
 * into a URL.
 */
export function groupVersionPath(apiVersion: string): string {
  const gv = parseApiVersion(apiVersion);
  if (!gv) throw new InvalidApiVersionError(apiVersion);
  const version = encodeURIComponent(gv.version);
  return gv.group === "" ? `/api/${version}` : `/apis/${encodeURIComponent(gv.group)}/${version}`;
}

export class InvalidApiVersionError extends Error {
  constructor(readonly apiVersion: string) {
    super(`not an API version: ${JSON.stringify(apiVersion)}`);
    this.name = "InvalidApiVersionError";
  }
}
