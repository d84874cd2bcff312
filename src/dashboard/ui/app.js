// The dashboard UI: plain ES module, no framework, no build step, no CDN. Renders with DOM nodes and
// textContent only (never HTML strings), keeps the data in memory, and applies the server-sent events
// of /dashboard/api/stream to it, so pages update live without a reload.
/* global document, window, fetch, EventSource, location, history, URLSearchParams */

const API = "/dashboard/api";
const FINAL = new Set(["SUCCEEDED", "FAILED", "CANCELLED"]);
const state = {
  me: null,
  groups: new Map(),
  requests: new Map(),
  events: [],
  flash: new Set(),
};

/** Element builder: attributes, then children (strings become text nodes). */
function h(tag, attrs, ...children) {
  const node = document.createElementNS(
    tag === "svg" || attrs?.svg ? "http://www.w3.org/2000/svg" : "http://www.w3.org/1999/xhtml",
    tag,
  );
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (k === "svg" || v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "text") node.textContent = v;
    // Through the CSSOM: the Content-Security-Policy refuses style attributes.
    else if (k === "style") node.style.cssText = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof window.Node ? child : document.createTextNode(String(child)));
  }
  return node;
}
const s = (tag, attrs, ...children) => h(tag, { ...attrs, svg: true }, ...children);

async function api(path, options = {}) {
  const headers = { Accept: "application/json" };
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  if (options.method && options.method !== "GET") headers["X-CSRF-Token"] = state.me?.csrfToken ?? "";
  const res = await fetch(`${API}${path}`, {
    method: options.method ?? "GET",
    headers,
    credentials: "same-origin",
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  if (res.status === 401) {
    // The server names the sign-in page (/me); before /me answered, a reload lets its guard redirect.
    const signIn = state.me?.auth.signInPage;
    if (signIn)
      location.assign(`${signIn}?callbackUrl=${encodeURIComponent(location.pathname + location.hash)}`);
    else location.reload();
    throw new Error("signed out");
  }
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body?.error?.message ?? `HTTP ${res.status}`);
  return body;
}

function toast(message) {
  const el = document.getElementById("toast");
  el.textContent = message;
  el.hidden = false;
  window.clearTimeout(toast.timer);
  toast.timer = window.setTimeout(() => {
    el.hidden = true;
  }, 5000);
}

const key = (o) => `${o.namespace}/${o.name}`;
const fmtTime = (iso) => (iso ? new Date(iso).toLocaleString() : "—");
const num = (n) => (n === null || n === undefined ? "—" : String(n));

function stateBadge(value) {
  return h("span", { class: `state ${value}` }, value);
}

// ---- Views ---------------------------------------------------------------------------------------

function groupCard(g) {
  const size = g.targetSize ?? 0;
  const pct = g.max ? Math.min(100, Math.round((size / g.max) * 100)) : 0;
  return h(
    "article",
    { class: "card", "data-group": key(g) },
    h("h2", null, h("a", { href: `#/groups/${g.namespace}/${g.name}` }, g.name)),
    h("div", { class: "muted" }, `${g.namespace} · ${g.zone ?? `region ${g.region}`} · ${g.target}`),
    h(
      "div",
      { class: "stats" },
      h("div", null, h("b", { "data-field": "targetSize" }, num(g.targetSize)), h("span", null, "target")),
      h("div", null, h("b", { "data-field": "ready" }, num(g.ready)), h("span", null, "ready")),
      h("div", null, h("b", null, num(g.max)), h("span", null, "max")),
      h("div", null, h("b", { "data-field": "queued" }, num(g.queued)), h("span", null, "queued")),
    ),
    h(
      "div",
      {
        class: "bar",
        role: "meter",
        "aria-label": `capacity used of ${g.name}`,
        "aria-valuemin": 0,
        "aria-valuemax": g.max ?? size,
        "aria-valuenow": size,
      },
      h("i", { style: `width:${pct}%` }),
    ),
    h(
      "div",
      { class: "actions" },
      state.me?.mutations
        ? h("button", { type: "button", onclick: () => openCreate(g) }, "New request")
        : null,
      h("a", { class: "button ghost", href: `#/requests?group=${g.namespace}/${g.name}` }, "Requests"),
    ),
  );
}

function viewGroups() {
  const groups = [...state.groups.values()].sort((a, b) => key(a).localeCompare(key(b)));
  return [
    h("h1", null, "Instance groups"),
    groups.length === 0
      ? h("p", { class: "muted" }, "No groups you can see.")
      : h("section", { class: "cards", "aria-label": "Groups" }, groups.map(groupCard)),
  ];
}

function requestRow(r) {
  return h(
    "tr",
    { "data-request": key(r), class: state.flash.has(key(r)) ? "flash" : null },
    h("td", null, h("a", { href: `#/requests/${r.namespace}/${r.name}` }, r.name)),
    h("td", { class: "hide-sm" }, r.namespace),
    h("td", null, r.group),
    h("td", null, String(r.size)),
    h("td", { "data-field": "state" }, stateBadge(r.state)),
    h("td", { class: "hide-sm" }, r.reason ?? ""),
    h("td", { class: "hide-sm" }, num(queuePosition(r))),
    h("td", { class: "hide-sm" }, fmtTime(r.runUntil)),
    h("td", null, cancelButton(r)),
  );
}

/** Creation time, then name: the order in which a group serves its queue. */
const servedBefore = (a, b) =>
  (a.created ?? "") < (b.created ?? "") || ((a.created ?? "") === (b.created ?? "") && a.name < b.name);

/**
 * Position in its group's queue (1 = next to start), derived from the FIFO order: the operator does
 * not store it, so that a queue moving up costs no writes.
 */
function queuePosition(r) {
  if (!r.queued) return null;
  let position = 1;
  for (const o of state.requests.values())
    if (o.queued && o.namespace === r.namespace && o.group === r.group && servedBefore(o, r)) position++;
  return position;
}

function cancelButton(r) {
  if (!state.me?.mutations || FINAL.has(r.state) || r.cancelRequested) return null;
  return h(
    "button",
    { type: "button", class: "danger", "aria-label": `Cancel ${r.name}`, onclick: () => cancel(r) },
    "Cancel",
  );
}

function viewRequests(params) {
  const group = params.get("group");
  const rows = [...state.requests.values()]
    .filter((r) => !group || `${r.namespace}/${r.group}` === group)
    .sort((a, b) => (b.created ?? "").localeCompare(a.created ?? "") || a.name.localeCompare(b.name));
  return [
    h("h1", null, group ? `Requests of ${group}` : "Resize requests"),
    h(
      "div",
      { class: "table" },
      h(
        "table",
        null,
        h("caption", null, `${rows.length} request(s), newest first; updates live`),
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            ["Name", "Namespace", "Group", "Size", "State", "Reason", "Queue", "Run until", ""].map((t, i) =>
              h("th", { scope: "col", class: [1, 5, 6, 7].includes(i) ? "hide-sm" : null }, t),
            ),
          ),
        ),
        h("tbody", null, rows.map(requestRow)),
      ),
    ),
  ];
}

async function viewRequest(namespace, name) {
  const d = await api(`/requests/${namespace}/${name}`);
  const r = d.request;
  const a = d.attempts;
  return [
    h("h1", null, `Request ${r.name}`),
    h(
      "div",
      { class: "grid2" },
      h(
        "section",
        { class: "card", "aria-label": "Summary" },
        h(
          "dl",
          { class: "kv" },
          h("dt", null, "State"),
          h("dd", { "data-field": "state" }, stateBadge(r.state)),
          h("dt", null, "Reason"),
          h("dd", null, r.reason ?? "—"),
          h("dt", null, "Group"),
          h("dd", null, h("a", { href: `#/groups/${r.namespace}/${r.group}` }, `${r.namespace}/${r.group}`)),
          h("dt", null, "Location"),
          h("dd", { "data-field": "location" }, r.location ?? "—"),
          h("dt", null, "Size"),
          h("dd", null, String(r.size)),
          h("dt", null, "Queue position"),
          h("dd", null, num(queuePosition(r))),
          h("dt", null, "Run until"),
          h("dd", null, fmtTime(r.runUntil)),
          h("dt", null, "Created"),
          h("dd", null, fmtTime(r.created)),
          h("dt", null, "Description"),
          h("dd", null, r.description ?? "—"),
        ),
        h("div", { class: "actions" }, cancelButton(r)),
      ),
      h(
        "section",
        { class: "card", "aria-label": "Timeline" },
        h("h2", null, "Timeline"),
        h(
          "ol",
          { class: "timeline" },
          d.timeline.map((t) =>
            h(
              "li",
              null,
              h("time", { datetime: t.time }, fmtTime(t.time)),
              h("strong", null, t.title),
              t.detail ? h("div", { class: "muted" }, t.detail) : null,
            ),
          ),
        ),
      ),
    ),
    h("h2", null, "Attempts"),
    h(
      "div",
      { class: "card" },
      h(
        "dl",
        { class: "kv" },
        h("dt", null, "Attempts started"),
        h("dd", null, String(a.count)),
        h("dt", null, "Current"),
        h(
          "dd",
          null,
          a.current
            ? `#${a.current.attempt} ${a.current.phase}: ${a.current.baseReplicas} → ${a.current.targetReplicas}`
            : "—",
        ),
        h("dt", null, "Next attempt"),
        h("dd", null, fmtTime(a.nextAttemptTime)),
        h("dt", null, "Last attempt error"),
        h("dd", null, a.lastError.map((e) => `${e.code}: ${e.message}`).join("; ") || "—"),
        h("dt", null, "Error"),
        h("dd", null, a.error.map((e) => `${e.code}: ${e.message}`).join("; ") || "—"),
      ),
    ),
    h("h2", null, "Events"),
    eventsTable(d.events, "Events of this request, oldest first"),
    h("h2", null, "Operations"),
    operationsTable(d.operations),
  ];
}

function eventsTable(events, caption) {
  return h(
    "div",
    { class: "table" },
    h(
      "table",
      null,
      h("caption", null, caption),
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          ["Time", "Type", "Reason", "Object", "Message"].map((t) => h("th", { scope: "col" }, t)),
        ),
      ),
      h(
        "tbody",
        null,
        events.map((e) =>
          h(
            "tr",
            null,
            h("td", null, fmtTime(e.time)),
            h("td", null, e.type),
            h("td", null, e.reason),
            h("td", null, `${e.namespace}/${e.object}`),
            h("td", { style: "white-space:normal" }, e.note + (e.count > 1 ? ` (×${e.count})` : "")),
          ),
        ),
      ),
    ),
  );
}

function operationsTable(ops) {
  return h(
    "div",
    { class: "table" },
    h(
      "table",
      null,
      h("caption", null, `${ops.length} operation(s)`),
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          ["Name", "Type", "Target", "Status", "Progress", "User", "Started", "Error"].map((t) =>
            h("th", { scope: "col" }, t),
          ),
        ),
      ),
      h(
        "tbody",
        null,
        ops.map((o) =>
          h(
            "tr",
            null,
            h("td", null, o.name),
            h("td", null, (o.operationType ?? "").split(".").pop()),
            h("td", null, (o.targetLink ?? "").split("/").pop()),
            h("td", null, o.status),
            h("td", null, `${o.progress ?? 0}%`),
            h("td", null, o.user ?? ""),
            h("td", null, fmtTime(o.insertTime)),
            h("td", null, (o.error?.errors ?? []).map((e) => e.code).join(", ")),
          ),
        ),
      ),
    ),
  );
}

async function viewOperations() {
  const { items } = await api("/operations");
  return [h("h1", null, "Operations"), operationsTable(items)];
}

function viewEvents() {
  return [h("h1", null, "Events"), eventsTable(state.events.slice(0, 200), "Newest first; updates live")];
}

/** Capacity over time: target size and ready instances as lines, max as a dashed line. */
function chart(points, now) {
  const W = 640;
  const H = 220;
  const P = { l: 36, r: 10, t: 10, b: 24 };
  if (points.length === 0) return h("p", { class: "muted" }, "No data yet.");
  const series = [...points, { ...points[points.length - 1], t: now }];
  const t0 = series[0].t;
  const t1 = Math.max(now, t0 + 1000);
  const top = Math.max(1, ...series.map((p) => Math.max(p.max ?? 0, p.targetSize ?? 0, p.ready ?? 0)));
  const x = (t) => P.l + ((t - t0) / (t1 - t0)) * (W - P.l - P.r);
  const y = (v) => H - P.b - (v / top) * (H - P.t - P.b);
  // Step lines: a value holds until the next point.
  const path = (field) =>
    series
      .map((p, i) => {
        const v = p[field] ?? 0;
        return i === 0 ? `M${x(p.t)},${y(v)}` : `H${x(p.t)}V${y(v)}`;
      })
      .join("");
  const last = series[series.length - 1];
  return h(
    "figure",
    { class: "chart" },
    s(
      "svg",
      {
        viewBox: `0 0 ${W} ${H}`,
        role: "img",
        "aria-label": `Capacity over time: target ${num(last.targetSize)}, ready ${num(last.ready)}, max ${num(last.max)}`,
      },
      s("line", { class: "axis", x1: P.l, y1: H - P.b, x2: W - P.r, y2: H - P.b }),
      s("line", { class: "axis", x1: P.l, y1: P.t, x2: P.l, y2: H - P.b }),
      s("text", { x: 4, y: y(top) + 4 }, String(top)),
      s("text", { x: 4, y: H - P.b + 4 }, "0"),
      s("text", { x: P.l, y: H - 6 }, new Date(t0).toLocaleTimeString()),
      s("text", { x: W - P.r, y: H - 6, "text-anchor": "end" }, "now"),
      last.max !== null
        ? s("path", {
            d: path("max"),
            fill: "none",
            stroke: "#b91c1c",
            "stroke-dasharray": "5 4",
            "stroke-width": 1.5,
          })
        : null,
      s("path", { d: path("targetSize"), fill: "none", stroke: "#1d4ed8", "stroke-width": 2.5 }),
      // Dashed, so that it stays visible where it equals the target size.
      s("path", {
        d: path("ready"),
        fill: "none",
        stroke: "#15803d",
        "stroke-width": 2,
        "stroke-dasharray": "6 4",
      }),
    ),
    h(
      "figcaption",
      { class: "legend" },
      h("span", null, h("i", { style: "background:#1d4ed8" }), "target size"),
      h("span", null, h("i", { style: "background:#15803d" }), "ready"),
      h("span", null, h("i", { style: "background:#b91c1c" }), "max"),
    ),
  );
}

async function viewGroup(namespace, name) {
  const d = await api(`/groups/${namespace}/${name}/capacity`);
  const g = state.groups.get(`${namespace}/${name}`) ?? d.group;
  const rows = [...state.requests.values()]
    .filter((r) => r.namespace === namespace && r.group === name)
    .sort((a, b) => (b.created ?? "").localeCompare(a.created ?? ""));
  return [
    h("h1", null, `Group ${name}`),
    h(
      "div",
      { class: "grid2" },
      groupCard(g),
      h(
        "section",
        { class: "card", "aria-label": "Capacity over time" },
        h("h2", null, "Capacity over time"),
        chart(d.points, Date.now()),
      ),
    ),
    h("h2", null, "Requests"),
    h(
      "div",
      { class: "table" },
      h(
        "table",
        null,
        h("caption", null, `${rows.length} request(s)`),
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            ["Name", "Namespace", "Group", "Size", "State", "Reason", "Queue", "Run until", ""].map((t, i) =>
              h("th", { scope: "col", class: [1, 5, 6, 7].includes(i) ? "hide-sm" : null }, t),
            ),
          ),
        ),
        h("tbody", null, rows.map(requestRow)),
      ),
    ),
  ];
}

// ---- Actions -------------------------------------------------------------------------------------

function openCreate(g) {
  const dialog = h(
    "dialog",
    { "aria-labelledby": "create-title" },
    h(
      "form",
      { class: "stack", method: "dialog" },
      h("h2", { id: "create-title" }, `New request for ${g.name}`),
      h(
        "label",
        null,
        "Name",
        h("input", {
          name: "name",
          required: true,
          pattern: "[a-z]([-a-z0-9]*[a-z0-9])?",
          maxlength: 63,
          autocomplete: "off",
        }),
      ),
      h(
        "label",
        null,
        "Instances",
        h("input", { name: "resizeBy", type: "number", min: 1, value: 1, required: true }),
      ),
      h(
        "label",
        null,
        "Run duration (seconds, optional)",
        h("input", { name: "seconds", type: "number", min: 1 }),
      ),
      h("label", null, "Description", h("input", { name: "description", maxlength: 2048 })),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "submit", value: "create" }, "Create"),
        h("button", { type: "button", class: "ghost", onclick: () => dialog.close() }, "Close"),
      ),
    ),
  );
  dialog.addEventListener("close", () => dialog.remove());
  dialog.querySelector("form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = new window.FormData(ev.target);
    const seconds = f.get("seconds");
    const body = {
      namespace: g.namespace,
      group: g.name,
      name: String(f.get("name")),
      resizeBy: Number(f.get("resizeBy")),
      ...(seconds ? { requestedRunDuration: { seconds: String(seconds) } } : {}),
      ...(f.get("description") ? { description: String(f.get("description")) } : {}),
    };
    try {
      await api("/requests", { method: "POST", body });
      dialog.close();
      toast(`Request ${body.name} created`);
      location.hash = `#/requests/${g.namespace}/${body.name}`;
    } catch (err) {
      toast(`Not created: ${err.message}`);
    }
  });
  document.body.append(dialog);
  dialog.showModal();
}

async function cancel(r) {
  if (!window.confirm(`Cancel request ${r.name}?`)) return;
  try {
    await api(`/requests/${r.namespace}/${r.name}/cancel`, { method: "POST", body: {} });
    toast(`Cancel of ${r.name} requested`);
  } catch (err) {
    toast(`Not cancelled: ${err.message}`);
  }
}

async function signOut() {
  const res = await fetch(`${state.me.auth.basePath}/csrf`, { credentials: "same-origin" });
  const { csrfToken } = await res.json();
  const form = h(
    "form",
    { method: "POST", action: `${state.me.auth.basePath}/signout` },
    h("input", { type: "hidden", name: "csrfToken", value: csrfToken }),
    h("input", { type: "hidden", name: "callbackUrl", value: "/" }),
  );
  document.body.append(form);
  form.submit();
}

// ---- Routing and live updates ----------------------------------------------------------------------

let rendering = 0;
async function render({ focus = false } = {}) {
  const ticket = ++rendering;
  const [path, query] = (location.hash.slice(1) || "/groups").split("?");
  const parts = path.split("/").filter(Boolean);
  const params = new URLSearchParams(query ?? "");
  for (const a of document.querySelectorAll("[data-nav]")) {
    if (a.dataset.nav === (parts[0] ?? "groups")) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  let content;
  try {
    if (parts[0] === "requests" && parts.length === 3) content = await viewRequest(parts[1], parts[2]);
    else if (parts[0] === "groups" && parts.length === 3) content = await viewGroup(parts[1], parts[2]);
    else if (parts[0] === "requests") content = viewRequests(params);
    else if (parts[0] === "operations") content = await viewOperations();
    else if (parts[0] === "events") content = viewEvents();
    else content = viewGroups();
  } catch (err) {
    content = [h("h1", null, "Not available"), h("p", null, err.message)];
  }
  if (ticket !== rendering) return;
  const main = document.getElementById("main");
  const scroll = window.scrollY;
  main.replaceChildren(...[content].flat());
  state.flash.clear();
  if (focus) {
    // A new page starts at its top, with the keyboard focus on its content.
    window.scrollTo(0, 0);
    main.focus({ preventScroll: true });
  } else window.scrollTo(0, scroll);
}

let pending;
function rerender() {
  // Bursts of watch events (a relist) render once.
  window.clearTimeout(pending);
  pending = window.setTimeout(() => void render(), 120);
}

function connect() {
  const live = document.getElementById("live");
  const source = new EventSource(`${API}/stream`);
  source.addEventListener("open", () => {
    live.textContent = "live";
    live.className = "live on";
  });
  source.addEventListener("error", () => {
    live.textContent = "reconnecting…";
    live.className = "live off";
  });
  source.addEventListener("request", (ev) => {
    const { op, data } = JSON.parse(ev.data);
    if (op === "delete") state.requests.delete(key(data));
    else state.requests.set(key(data), data);
    state.flash.add(key(data));
    rerender();
  });
  source.addEventListener("group", (ev) => {
    const { op, data } = JSON.parse(ev.data);
    if (op === "delete") state.groups.delete(key(data));
    else state.groups.set(key(data), data);
    rerender();
  });
  source.addEventListener("event", (ev) => {
    const { data } = JSON.parse(ev.data);
    state.events = [data, ...state.events.filter((e) => key(e) !== key(data))].slice(0, 500);
    rerender();
  });
}

async function start() {
  state.me = await api("/me");
  const user = state.me.user;
  document.getElementById("user").textContent = user.name ?? user.email ?? "";
  document.getElementById("user").title = state.me.kubernetes.username;
  document.getElementById("signout").addEventListener("click", () => void signOut());
  const [groups, requests, events] = await Promise.all([api("/groups"), api("/requests"), api("/events")]);
  for (const g of groups.items) state.groups.set(key(g), g);
  for (const r of requests.items) state.requests.set(key(r), r);
  state.events = events.items;
  window.addEventListener("hashchange", () => void render({ focus: true }));
  await render();
  connect();
  // The session endpoint refreshes the session cookie (rolling expiry) while the page is open.
  window.setInterval(
    () => void fetch(`${state.me.auth.basePath}/session`, { credentials: "same-origin" }),
    10 * 60_000,
  );
}

void start().catch((err) => {
  toast(err.message);
});
history.scrollRestoration = "manual";
