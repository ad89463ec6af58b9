import { z } from 'zod';
import { runCommand } from '../../cli/commands';
import type { Deps } from '../../deps';
import type { Database } from '../../db/client';
import type { EmbeddedLock } from '../../db/embedded-lock';
import { anonymousActor } from '../../http/actor';
import { endpoint, jsonResult, textResult } from '../../http/endpoint';
import { AppError } from '../../http/errors';
import { jsonProtocol } from '../../http/protocol';
import { bearerToken } from '../../http/request-context';
import { ROUTER_GUARDS } from '../router-guards';
import { buildSurface } from '../../http/router';
import { routeTable } from '../../http/route-table';
import { constantTimeEqual } from '../../crypto/secrets';

/** Who may call: anyone, the holder of METRICS_TOKEN (when set), or the CLI of this embedded-store server. */
type OpsGuard = 'public' | 'metrics' | 'cli';

function opsEndpoints(database: Database) {
  return {
    health: endpoint<null>({
      summary: 'The process is up',
      response: z.object({ status: z.literal('ok') }),
      handle: async () => ({ status: 'ok' as const }),
    }),
    ready: endpoint<null>({
      summary: 'The database answers (503 when it does not within 2 s)',
      response: z.object({ status: z.enum(['ready', 'unavailable']), database: z.string() }),
      handle: async ({ deps }) => {
        try {
          await Promise.race([
            database.ping(),
            new Promise((_, reject) => setTimeout(() => reject(new Error('database ping timed out')), 2000).unref()),
          ]);
          return { status: 'ready' as const, database: database.kind };
        } catch (err) {
          deps.logger.warn({ err }, 'readiness check failed');
          return jsonResult({ status: 'unavailable', database: database.kind }, 503);
        }
      },
    }),
    metrics: endpoint<null>({
      summary: 'Prometheus metrics',
      response: z.string(),
      handle: async ({ deps }) => textResult(await deps.metrics.registry.metrics(), deps.metrics.registry.contentType),
    }),
    cli: endpoint<null, { argv: string[] }>({
      summary: 'Runs a CLI command in the process that owns the embedded store',
      body: z.object({ argv: z.array(z.string()).max(50) }),
      response: z.unknown(),
      audit: { unaudited: 'the CLI commands audit their own changes (actor cli)' },
      handle: async ({ deps, body }) => runCommand(deps, body.argv),
    }),
  };
}

/** Health, readiness, metrics and the CLI bridge of an embedded-store server. */
export function createOps(deps: Deps, database: Database, lock: EmbeddedLock | null) {
  const ops = opsEndpoints(database);
  const route = routeTable<OpsGuard, null>();
  return buildSurface<OpsGuard, null>(
    deps,
    {
      name: 'ops',
      protocol: jsonProtocol(),
      routes: [
        route('GET', '/healthz', 'public', ops.health),
        route('GET', '/readyz', 'public', ops.ready),
        route('GET', '/metrics', 'metrics', ops.metrics),
        route('POST', '/internal/cli', 'cli', ops.cli),
      ],
      authenticate: async (c, r) => {
        const token = r.guard === 'metrics' ? deps.config.METRICS_TOKEN : r.guard === 'cli' ? lock?.token : null;
        if (r.guard === 'cli' && !token) throw new AppError('NOT_FOUND');
        if (token && !constantTimeEqual(bearerToken(c.req.header('authorization')) ?? '', token)) {
          if (r.guard === 'cli') throw new AppError('NOT_FOUND');
          throw new AppError('UNAUTHENTICATED', { message: 'Send the metrics token as "Authorization: Bearer <METRICS_TOKEN>".' });
        }
        return null;
      },
      actorOf: (_auth, request) => anonymousActor(request),
    },
    ROUTER_GUARDS,
  );
}
