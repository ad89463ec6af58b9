import { getRequestListener } from '@hono/node-server';
import { createApiHandler } from '../api';
import { boot } from './boot';
import { createHttpServer } from './http-server';

/** `npm run api`: every API surface, no console, for lean API nodes. */
const { config, runtime } = await boot();
const listener = getRequestListener(createApiHandler(runtime));
createHttpServer(listener, runtime.deps.logger).listen(config.PORT, config.HOST, () => {
  runtime.deps.logger.info({ port: config.PORT, url: config.PUBLIC_URL }, 'Latchkey API listening');
});
