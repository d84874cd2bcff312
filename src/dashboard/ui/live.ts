// The live stream (/dashboard/api/stream, server-sent events): applies each message to the store and
// tells the page, at most once per burst, what changed. The browser reconnects by itself; a stream the
// server refused for good (it ends a stream whose session ended, and then answers 401) is followed by
// an API call, which sends the user to sign in again or opens a new stream.
import type { StreamPayloads, StreamUpdate } from "../answers.js";
import { API, api } from "./client.js";
import { store, type Changes } from "./store.js";

/** A relist arrives as a burst of messages: they reach the page together, this long after the first. */
const BATCH_MS = 120;

const TYPES: readonly (keyof StreamPayloads)[] = ["request", "group", "event", "booking"];

/** How long after the browser gave the stream up the page checks why. */
const RECHECK_MS = 2_000;

export function connect(onChanges: (changes: Changes) => void): void {
  const live = document.getElementById("live");
  const source = new EventSource(`${API}/stream`);
  source.addEventListener("open", () => {
    if (!live) return;
    live.textContent = "live";
    live.className = "live on";
  });
  source.addEventListener("error", () => {
    if (source.readyState === EventSource.CLOSED)
      // A cheap read: a 401 sends the user to sign in (client.ts); any other answer, a new stream.
      window.setTimeout(() => {
        api("/namespaces").then(
          () => {
            connect(onChanges);
          },
          () => undefined,
        );
      }, RECHECK_MS);
    if (!live) return;
    live.textContent = "reconnecting…";
    live.className = "live off";
  });
  let timer: number | undefined;
  for (const type of TYPES)
    source.addEventListener(type, (ev: MessageEvent<string>) => {
      // The server frames each message from answers.ts's StreamUpdate of this event type.
      store.apply(type, JSON.parse(ev.data) as StreamUpdate<StreamPayloads[typeof type]>);
      timer ??= window.setTimeout(() => {
        timer = undefined;
        onChanges(store.takeChanges());
      }, BATCH_MS);
    });
}
