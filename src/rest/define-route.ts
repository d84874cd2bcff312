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
  RouteCall,
  RouteDescription,
  RouteParameter,
  RouteRequest,
} from "./route.js";
import type { Logger } from "pino";
import type { UserInfo } from "./auth.js";
import type { RestDeps } from "./deps.js";
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
 * A handler's view of a call: its checked parameters and body. The logger and the signal are read
 * through prototype getters (both are made on first use, and most calls use neither); an object literal
 * with getters would give every call its own hidden class (see invoke.ts's InvokedCall).
 */
class TypedCall<P, B> implements CallContext<P, B> {
  readonly user: UserInfo;
  readonly deps: RestDeps;

  constructor(
    readonly params: P,
    readonly body: B,
    private readonly call: RouteCall,
  ) {
    this.user = call.user;
    this.deps = call.deps;
  }

  get log(): Logger {
    return this.call.log;
  }

  get signal(): AbortSignal {
    return this.call.signal;
  }
}

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
    if (spec.request === undefined) return spec.handler(new TypedCall(params, undefined, call));
    return spec.handler(new TypedCall(params, parseBody(spec.request.validate, call.body), call));
  };
  return { ...spec, handler };
}
