// How values read on the page: keys of namespaced objects, times, missing numbers.

/** `namespace/name`: the key of groups, requests and events in the store and in data-* attributes. */
export const keyOf = (o: { readonly namespace: string; readonly name: string }): string =>
  `${o.namespace}/${o.name}`;

export const fmtTime = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toLocaleString() : "—";

export const num = (n: number | null | undefined): string =>
  n === null || n === undefined ? "—" : String(n);
