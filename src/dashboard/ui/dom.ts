// Rendering helpers: element builders that only ever set text and attributes (never HTML strings), and
// keyed list updates, so live changes replace the rows that changed and keep the others (with their
// focus, selection and running animations).

/** A child of an element: nodes, text, or nothing (null, undefined and false are skipped). */
export type Child = Node | string | number | null | undefined | false | readonly Child[];

type Listener = (event: Event) => void;
/** Attributes; `on…` keys take listeners, `text` sets textContent, `style` goes through the CSSOM. */
export type Attrs = Readonly<Record<string, string | number | boolean | null | undefined | Listener>>;

const SVG_NS = "http://www.w3.org/2000/svg";

function build<E extends Element>(node: E, attrs: Attrs | null, children: readonly Child[]): E {
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === "function") node.addEventListener(name.slice(2), value);
    else if (name === "text") node.textContent = String(value);
    // Through the CSSOM: the Content-Security-Policy refuses style attributes.
    else if (name === "style" && (node instanceof HTMLElement || node instanceof SVGElement))
      node.style.cssText = String(value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

function append(node: Element, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    // Strings become text nodes: markup in data stays text.
    if (typeof child === "string" || typeof child === "number") node.append(String(child));
    else if (child instanceof Node) node.append(child);
    else append(node, child);
  }
}

/** An HTML element. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  return build(document.createElement(tag), attrs, children);
}

/** An SVG element. */
export function s(tag: string, attrs: Attrs | null, ...children: Child[]): SVGElement {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** What a keyed child was rendered from: its key and a fingerprint of everything it shows. */
const rendered = new WeakMap<Element, { readonly key: string; readonly version: string }>();

export interface KeyedList<T> {
  readonly key: (item: T) => string;
  /** Changes whenever anything the rendered element shows changes (JSON of its inputs will do). */
  readonly version: (item: T) => string;
  readonly render: (item: T) => Element;
}

/**
 * Makes `parent`'s children the rendering of `items`, in order: an element whose key and version are
 * unchanged is kept as it is, a changed one is rendered anew, elements of items gone are removed.
 */
export function updateKeyed<T>(parent: Element, items: readonly T[], list: KeyedList<T>): void {
  const existing = new Map<string, Element>();
  for (const child of Array.from(parent.children)) {
    const info = rendered.get(child);
    if (info) existing.set(info.key, child);
  }
  let cursor = parent.firstElementChild;
  for (const item of items) {
    const key = list.key(item);
    const version = list.version(item);
    let node = existing.get(key);
    existing.delete(key);
    if (node && rendered.get(node)?.version !== version) {
      const fresh = list.render(item);
      node.replaceWith(fresh);
      if (cursor === node) cursor = fresh;
      node = fresh;
    }
    if (!node) node = list.render(item);
    rendered.set(node, { key, version });
    if (node === cursor) cursor = node.nextElementSibling;
    else parent.insertBefore(node, cursor);
  }
  for (const stale of existing.values()) stale.remove();
}
