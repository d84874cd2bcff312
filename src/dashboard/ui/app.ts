// The dashboard UI's entry point: loads the data, routes the location hash to a page, and hands the
// live stream's changes to the open page (which updates the rows they touch, never the whole page).
// No framework, no CDN; built by tsc from src/dashboard/ui (tsconfig.json there) into dist/browser.
import type { ItemsAnswer, MeAnswer } from "../answers.js";
import type { BookingSummary } from "../booking-timeline.js";
import type { EventSummary } from "../../events/view.js";
import type { GroupSummary, RequestSummary } from "../views.js";
import { toast } from "./actions.js";
import { keepSessionAlive, learnAuthPaths, signOut } from "./auth.js";
import { api, useCsrfToken } from "./client.js";
import { h } from "./dom.js";
import { connect } from "./live.js";
import {
  eventsPage,
  groupPage,
  groupsPage,
  operationsPage,
  requestPage,
  requestsPage,
  type Page,
} from "./pages.js";
import { store, type Changes } from "./store.js";

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The page a location hash names (`#/requests/ns/name`, `#/requests?group=ns/g`, …). */
async function pageFor(parts: readonly string[], params: URLSearchParams): Promise<Page> {
  const [section, namespace, name] = parts;
  if (namespace !== undefined && name !== undefined && parts.length === 3) {
    if (section === "requests") return requestPage(namespace, name);
    if (section === "groups") return groupPage(namespace, name);
  }
  if (section === "requests") return requestsPage(params);
  if (section === "operations") return operationsPage();
  if (section === "events") return eventsPage();
  return groupsPage();
}

let current: Page | undefined;
let rendering = 0;
/**
 * Whether the latest input was the keyboard: the main region's focus frame after a navigation is for
 * keyboard users (it shows where Tab goes next), not for a click or a link followed from elsewhere.
 */
let keyboardInput = false;

async function render({ focus = false } = {}): Promise<void> {
  const ticket = ++rendering;
  const [path = "", query] = (location.hash.slice(1) || "/groups").split("?");
  const parts = path.split("/").filter(Boolean);
  for (const a of document.querySelectorAll<HTMLElement>("[data-nav]")) {
    if (a.dataset.nav === (parts[0] ?? "groups")) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  let page: Page;
  try {
    page = await pageFor(parts, new URLSearchParams(query ?? ""));
  } catch (err) {
    page = { content: [h("h1", null, "Not available"), h("p", null, messageOf(err))] };
  }
  // A later navigation won the race.
  if (ticket !== rendering) return;
  current = page;
  const main = document.getElementById("main");
  if (!main) return;
  const scroll = window.scrollY;
  main.replaceChildren(...page.content);
  if (focus) {
    // A new page starts at its top, with the keyboard focus on its content.
    window.scrollTo(0, 0);
    main.classList.toggle("keyboard-focus", keyboardInput);
    main.focus({ preventScroll: true });
  } else window.scrollTo(0, scroll);
}

function onChanges(changes: Changes): void {
  if (current?.update?.(changes) === "reload") void render();
}

async function start(): Promise<void> {
  const me = await api<MeAnswer>("/me");
  store.me = me;
  learnAuthPaths(me.auth);
  useCsrfToken(me.csrfToken);
  const user = document.getElementById("user");
  if (user) {
    user.textContent = me.user.name ?? me.user.email ?? "";
    user.title = me.kubernetes.username;
  }
  document.getElementById("signout")?.addEventListener("click", () => void signOut());
  const [groups, requests, events, bookings] = await Promise.all([
    api<ItemsAnswer<GroupSummary>>("/groups"),
    api<ItemsAnswer<RequestSummary>>("/requests"),
    api<ItemsAnswer<EventSummary>>("/events"),
    api<ItemsAnswer<BookingSummary>>("/bookings"),
  ]);
  store.load(groups.items, requests.items, events.items, bookings.items);
  // Capture phase: seen before any handler of the page can stop the event.
  window.addEventListener("keydown", () => (keyboardInput = true), true);
  window.addEventListener("pointerdown", () => (keyboardInput = false), true);
  window.addEventListener("hashchange", () => void render({ focus: true }));
  await render();
  connect(onChanges);
  keepSessionAlive();
}

history.scrollRestoration = "manual";
start().catch((err: unknown) => {
  toast(messageOf(err));
});
