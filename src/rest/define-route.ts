// How a row of the route table is written: `defineRoute` types the row's handler from the row itself,
// as Fastify infers a handler's types from its route schema. `call.params` has exactly the row's
// parameters (required ones and those with a default always present, the others optional) and
// `call.body` is what the row's request schema outputs: no lookups by name, no casts in handlers.
import type {
  CallContext,
  Handler,
  ParamsOf,
  Reply,
  Route,
  RouteDescription,
  RouteParameter,
  RouteRequest,
} from "./route.js";
import { parameterParser, parseBody } from "./validate.js";

type TypedHandler<P, B> = (call: CallContext<P, B>) => Promise<Reply>;

/** A row of the table as it is written: its handler typed by its parameters and its request. */
export type RouteSpec<P extends readonly RouteParameter[], B> = RouteDescription & {
  readonly parameters: P;
} & (
    | { readonly request: RouteRequest<B>; readonly handler: TypedHandler<ParamsOf<P>, B> }
    | { readonly request?: undefined; readonly handler: TypedHandler<ParamsOf<P>, undefined> }
  );

/**
 * A row of the route table. Its handler runs a call in the order the REST API has always checked:
 * parameters (validators compiled here, once), then `admit` (scopes, `fields`, RBAC), then the body,
 * then the typed handler.
 */
export function defineRoute<const P extends readonly RouteParameter[], B = undefined>(
  spec: RouteSpec<P, B>,
): Route {
  const parse = parameterParser(spec.parameters);
  const handler: Handler = async (call) => {
    const { params, project } = parse(call.path, call.query);
    await call.admit(project);
    // The logger and the signal are read through: both are made on first use, and most calls use neither.
    const context = <T>(body: T): CallContext<ParamsOf<P>, T> => ({
      params,
      body,
      user: call.user,
      get log() {
        return call.log;
      },
      get signal() {
        return call.signal;
      },
      deps: call.deps,
    });
    if (spec.request === undefined) return spec.handler(context(undefined));
    return spec.handler(context(parseBody(spec.request.validate, call.body)));
  };
  return { ...spec, handler };
}
