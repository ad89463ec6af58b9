import { sharedRuntime } from '../runtime';
import { createApiHandler, type FetchHandler } from './index';

let handler: Promise<FetchHandler> | undefined;

/**
 * The Next.js route handlers (`next dev`, serverless hosts) reach the same routers as
 * the custom server through this.
 */
async function handleApiRequest(req: Request): Promise<Response> {
  handler ??= sharedRuntime().then(createApiHandler);
  return (await handler)(req);
}

export const apiRouteHandlers = {
  GET: handleApiRequest,
  POST: handleApiRequest,
  PUT: handleApiRequest,
  PATCH: handleApiRequest,
  DELETE: handleApiRequest,
  HEAD: handleApiRequest,
  OPTIONS: handleApiRequest,
};
