import { z } from 'zod';
import { endpoint } from '../../http/endpoint';
import { routeInstance, type ConsoleAuth } from './authenticate';
import { COUNTERS, GAUGES, instanceMetrics } from '../../analytics/metrics';

const metricsQuery = z.strictObject({ days: z.enum(['7', '30', '90']).default('30').transform(Number) });
const point = z.object({ date: z.number().int(), value: z.number().int() });

export const metrics = {
  /** Dashboard: the overview's numbers and charts, from the daily aggregates. */
  get: endpoint<ConsoleAuth, never, z.output<typeof metricsQuery>>({
    summary:
      'Daily users, sign-ins and failures, active users and sessions, webhook deliveries over 7, 30 or 90 days, and the getting-started checklist',
    query: metricsQuery,
    response: z.object({
      object: z.literal('instance_metrics'),
      days: z.number().int(),
      series: z.object(Object.fromEntries([...COUNTERS, ...GAUGES].map((m) => [m, z.array(point)]))),
      checklist: z.object({
        secret_key_used: z.boolean(),
        first_user: z.boolean(),
        first_sign_in: z.boolean(),
        webhook_endpoint: z.boolean(),
        branding: z.boolean(),
        production_instance: z.boolean(),
        custom_domain: z.boolean(),
      }),
    }),
    handle: ({ deps, auth, query }) => instanceMetrics(deps, routeInstance(auth).id, query.days),
  }),
};
