// A request's instances as one line of text, for `kubectl resize explain` and the dashboard: one rule,
// so both show the same. At most SHOWN names, then how many more (status.instances itself holds at
// most 500, and instancesTruncated says when the request holds more).

/** Names shown before "and N more". */
const SHOWN = 10;

export function instancesLine(
  instances: readonly { readonly kind: string; readonly name: string }[] | undefined,
  truncated: boolean | undefined,
): string | undefined {
  if (!instances || instances.length === 0) return undefined;
  const names = instances.slice(0, SHOWN).map((i) => `${i.kind}/${i.name}`);
  const more = instances.length - names.length;
  const tail = truncated ? ", and more" : more > 0 ? `, and ${more} more` : "";
  return `${names.join(", ")}${tail}`;
}
