// Kubernetes resource quantities (`resource.Quantity`: "500m", "32", "256Gi", "1e3"), parsed to plain
// numbers of the resource's base unit. Used to compare a pod's requests with what an instance of a
// group brings; doubles are exact for every quantity a node or a pod realistically carries.

/** The serialised forms the API server accepts: a signed decimal, then a binary/decimal SI suffix or an exponent. */
export const QUANTITY_PATTERN =
  "^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(([KMGTPE]i)|[numkMGTPE]|[eE][+-]?[0-9]+)?$";

const SUFFIX: Readonly<Record<string, number>> = {
  "": 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const FORM = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))((?:[KMGTPE]i)|[numkMGTPE]|[eE][+-]?[0-9]+)?$/;

/** The quantity in base units (cores, bytes, devices); undefined when `text` is not a quantity. */
export function parseQuantity(text: string | number): number | undefined {
  if (typeof text === "number") return Number.isFinite(text) ? text : undefined;
  const match = FORM.exec(text.trim());
  if (!match?.[1]) return undefined;
  const value = Number(match[1]);
  const suffix = match[2] ?? "";
  const factor = /^[eE]/.test(suffix) ? 10 ** Number(suffix.slice(1)) : SUFFIX[suffix];
  return factor === undefined ? undefined : value * factor;
}
