// Reading INFO replies, shared by the start-up checks of the topology and of the replicas.

/** `field:value` lines of an INFO reply. */
export function infoFields(info: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of info.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0 && !line.startsWith("#")) fields.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return fields;
}
