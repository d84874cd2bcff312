// What a user does besides reading: create a request (a dialog), cancel one, and the toast that tells
// how it went.
import type { GroupSummary, RequestSummary } from "../views.js";
import { api } from "./client.js";
import { h } from "./dom.js";

let toastTimer: number | undefined;

/** A message in the page's alert region for five seconds. */
export function toast(message: string): void {
  const el = document.getElementById("toast");
  if (!el) return;
  el.textContent = message;
  el.hidden = false;
  window.clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => {
    el.hidden = true;
  }, 5000);
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The body of POST /requests, from the dialog's form. */
function createBody(g: GroupSummary, form: FormData): Record<string, unknown> {
  const text = (name: string): string => {
    const value = form.get(name);
    return typeof value === "string" ? value : "";
  };
  const seconds = text("seconds");
  const description = text("description");
  return {
    namespace: g.namespace,
    group: g.name,
    name: text("name"),
    resizeBy: Number(text("resizeBy")),
    ...(seconds && { requestedRunDuration: { seconds } }),
    ...(description && { description }),
  };
}

export function openCreate(g: GroupSummary): void {
  const form = h(
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
      h(
        "button",
        {
          type: "button",
          class: "ghost",
          onclick: () => {
            dialog.close();
          },
        },
        "Close",
      ),
    ),
  );
  const dialog = h("dialog", { "aria-labelledby": "create-title" }, form);
  dialog.addEventListener("close", () => {
    dialog.remove();
  });
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const body = createBody(g, new FormData(form));
    api("/requests", { method: "POST", body }).then(
      () => {
        dialog.close();
        toast(`Request ${String(body.name)} created`);
        location.hash = `#/requests/${g.namespace}/${String(body.name)}`;
      },
      (err: unknown) => {
        toast(`Not created: ${messageOf(err)}`);
      },
    );
  });
  document.body.append(dialog);
  dialog.showModal();
}

export async function cancel(r: RequestSummary): Promise<void> {
  if (!window.confirm(`Cancel request ${r.name}?`)) return;
  try {
    await api(`/requests/${r.namespace}/${r.name}/cancel`, { method: "POST", body: {} });
    toast(`Cancel of ${r.name} requested`);
  } catch (err) {
    toast(`Not cancelled: ${messageOf(err)}`);
  }
}
