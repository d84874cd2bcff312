// Route paths matched as Express 5 matched them when it served the REST API (router 2 over
// path-to-regexp 8, default options), so a URL has the same answer on the node:http dispatcher:
// case-insensitive, one trailing slash tolerated, a `{param}` is one non-empty segment matched on the
// raw path and percent-decoded only when it holds a `%` (a bad escape is a URIError, which
// `toGoogleError` answers with 400).
import type { PathValues, Route } from "./route.js";

/** A compiled path template: the path below the service base → its parameters, or undefined. */
export type PathMatcher = (path: string) => PathValues | undefined;

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** Express's decodeParam: decode only what holds an escape, and name the value when it is malformed. */
function decodeParam(value: string): string {
  if (!value.includes("%")) return value;
  try {
    return decodeURIComponent(value);
  } catch (err) {
    if (err instanceof URIError) err.message = `Failed to decode param '${value}'`;
    throw err;
  }
}

/** `projects/{project}/…` → a matcher of `/projects/p/…`, compiled once per route. */
export function pathMatcher(template: string): PathMatcher {
  const names: string[] = [];
  const source = template
    .split(/(\{[A-Za-z]+\})/)
    .map((part) => {
      const name = /^\{([A-Za-z]+)\}$/.exec(part)?.[1];
      if (name === undefined) return escapeRegExp(part);
      names.push(name);
      return "([^\\/]+)";
    })
    .join("");
  const regexp = new RegExp(`^(?:\\/${source})(?:\\/$)?$`, "i");
  return (path) => {
    const match = regexp.exec(path);
    if (!match) return undefined;
    const values: Record<string, string> = {};
    names.forEach((name, i) => {
      values[name] = decodeParam(match[i + 1] ?? "");
    });
    return values;
  };
}

/**
 * The path below `base` when `path` is under it (Express's mount: case-insensitive, the base followed
 * by `/` or nothing), else undefined. The base itself and `base/` leave `/`.
 */
export function belowBase(base: string, path: string): string | undefined {
  if (path.length < base.length || path.slice(0, base.length).toLowerCase() !== base.toLowerCase())
    return undefined;
  const rest = path.slice(base.length);
  if (rest === "" || rest === "/") return "/";
  return rest.startsWith("/") ? rest : undefined;
}

/** The route a call is for, and its path values. */
export interface Found {
  readonly route: Route;
  readonly path: PathValues;
}

/**
 * Finds a call's route as Express did: the first of the table, in table order, whose path matches
 * (its values decoded then, a bad escape failing the call before any method is looked at) and whose
 * method is the call's. Each template is compiled once, here.
 */
export function routeFinder(routes: readonly Route[]): (method: string, path: string) => Found | undefined {
  const table = routes.map((route) => ({ route, match: pathMatcher(route.path) }));
  return (method, path) => {
    // Express answers HEAD with the GET route (Node then sends no body).
    const wanted = method === "HEAD" ? "GET" : method;
    for (const { route, match } of table) {
      const values = match(path);
      if (values && route.httpMethod === wanted) return { route, path: values };
    }
    return undefined;
  };
}
