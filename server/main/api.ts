import { getRequestListener } from '@hono/node-server';
import { createApiHandler } from '../api';
import { boot } from './boot';
import { createHttpServer } from './http-server';

/**
 * `npm run api`: every API surface, no console, for lean API nodes. With DATABASE_URL it runs
 * one HTTP worker per core (WEB_CONCURRENCY) on one port; this process is then their primary.
 */
const booted = await boot();
if (booted) {
  const { config, runtime, serve } = booted;
  const listener = getRequestListener(createApiHandler(runtime));
  serve(createHttpServer(listener, runtime.deps.logger)).listen(config.PORT, config.HOST, () => {
    runtime.deps.logger.info({ port: config.PORT, url: config.PUBLIC_URL, ordinal: booted.ordinal }, 'Latchkey API listening');
  });
}
