import { Hono } from 'hono';
import { z } from 'zod';
import { runCommand } from '../../cli/commands';
import type { Deps } from '../../deps';
import type { Database } from '../../db/client';
import type { EmbeddedLock } from '../../db/embedded-lock';
import { AppError } from '../../http/errors';
import { jsonProtocol, toAppError } from '../../http/protocol';
import { requestContext, type SurfaceEnv } from '../../http/request-context';
import { constantTimeEqual } from '../../http/secrets';
import { validate } from '../../http/validate';

const bearer = (header: string | undefined) => /^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1] ?? '';

/** Health, readiness, metrics and the CLI bridge of an embedded-store server. */
export function createOps(deps: Deps, database: Database, lock: EmbeddedLock | null) {
  const app = new Hono<SurfaceEnv>();
  app.use('*', requestContext(deps, 'ops'));
  const { renderError } = jsonProtocol();
  app.onError((err, c) => renderError(toAppError(deps, err, c), c));

  app.get('/healthz', (c) => {
    c.set('route', '/healthz');
    return c.json({ status: 'ok' });
  });

  app.get('/readyz', async (c) => {
    c.set('route', '/readyz');
    try {
      await Promise.race([
        database.ping(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('database ping timed out')), 2000).unref()),
      ]);
      return c.json({ status: 'ready', database: database.kind });
    } catch (err) {
      deps.logger.warn({ err }, 'readiness check failed');
      return c.json({ status: 'unavailable', database: database.kind }, 503);
    }
  });

  app.get('/metrics', async (c) => {
    c.set('route', '/metrics');
    const token = deps.config.METRICS_TOKEN;
    if (token && !constantTimeEqual(bearer(c.req.header('authorization')), token)) {
      throw new AppError('UNAUTHENTICATED', { message: 'Send the metrics token as "Authorization: Bearer <METRICS_TOKEN>".' });
    }
    return c.body(await deps.metrics.registry.metrics(), 200, { 'content-type': deps.metrics.registry.contentType });
  });

  app.post('/internal/cli', async (c) => {
    c.set('route', '/internal/cli');
    if (!lock?.token || !constantTimeEqual(bearer(c.req.header('authorization')), lock.token)) throw new AppError('NOT_FOUND');
    const { argv } = validate(z.object({ argv: z.array(z.string()).max(50) }), await c.req.json().catch(() => null));
    return c.json(await runCommand(deps, argv));
  });

  app.notFound((c) => renderError(new AppError('NOT_FOUND'), c));
  return app;
}
