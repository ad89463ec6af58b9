import type { Method, MountableEndpoint, PathParams } from './endpoint';
import type { RouteEntry } from './router';

/**
 * The auth a route's handler receives under a given guard, as a type-level function: a
 * surface whose handlers get a different auth by guard (a public route gets none, a
 * signed-in one the user) extends this, computing `auth` from `this['guard']`.
 */
export interface GuardAuth {
  readonly guard: unknown;
  readonly auth: unknown;
}
/** Every guard of the surface gives its handlers the same auth. */
export interface SameAuth<A> extends GuardAuth {
  readonly auth: A;
}
type AuthUnder<F extends GuardAuth, G> = (F & { readonly guard: G })['auth'];

/**
 * The line builder of a surface's route table: `route(method, path, guard, endpoint)`, the
 * path under the surface's `prefix`, the guard as written (`GuardIn`) turned into the
 * surface's `Guard` by `guard`, and the endpoint checked at compile time against the auth
 * its guard gives (`F`) and against the path parameters of `Prefix` and the path: an endpoint
 * reading `params.id` does not compile on a path without `:id`.
 */
export function routeTable<Guard, Auth, GuardIn = Guard, F extends GuardAuth = SameAuth<Auth>, Prefix extends string = ''>(
  opts: { prefix?: Prefix; guard?: (written: GuardIn) => Guard } = {},
) {
  return <G extends GuardIn, Path extends string>(
    method: Method,
    path: Path,
    guard: G,
    ep: MountableEndpoint<AuthUnder<F, G>, PathParams<`${Prefix}${Path}`>>,
  ): RouteEntry<Guard, Auth> => ({
    method,
    path: `${opts.prefix ?? ''}${path}`,
    guard: opts.guard ? opts.guard(guard) : (guard as unknown as Guard),
    endpoint: ep as unknown as MountableEndpoint<Auth>,
  });
}
