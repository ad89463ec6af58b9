import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  requests: Counter<'surface' | 'route' | 'method' | 'status'>;
  duration: Histogram<'surface' | 'route' | 'method'>;
  limiterRejections: Counter<'surface' | 'limit' | 'instance'>;
  /** Requests refused by an instance's network ACL, by the rule (or `not_in_allow_list`). */
  aclDenials: Counter<'surface' | 'instance' | 'rule'>;
  /** Webhook attempts by outcome (succeeded, retrying, failed, gone, endpoint_disabled, superseded). */
  webhookDeliveries: Counter<'outcome'>;
  /**
   * Webhook messages claimed again after an earlier claim lapsed or was given back
   * unfinished (a worker died or stopped mid-delivery): the earlier attempt's outcome is
   * unknown, so the receiver may get these twice — the only duplicates there are.
   */
  webhookRedeliveries: Counter;
  /** Attack protection at work, by instance and rule (user_lockout, step_up, password_compromised). */
  protection: Counter<'instance' | 'rule'>;
  /**
   * SMS handed to a provider, by provider and outcome: a send's answer (sent, retrying,
   * failed) and each status a callback moved an SMS to (delivered, undelivered, failed).
   */
  smsDeliveries: Counter<'provider' | 'status'>;
}

export interface MetricsOptions {
  defaultMetrics?: boolean;
  /** Pending webhook messages, read at scrape time. */
  webhookQueueDepth?: () => Promise<number>;
  /** The database client's counters (PostgreSQL), read at scrape time. */
  database?: () => { statements: number; running: number; waiting: number; refused: number };
}

export function createMetrics(opts: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (opts.defaultMetrics) collectDefaultMetrics({ register: registry });
  const database = opts.database;
  if (database) {
    const seen = { statements: 0, refused: 0 };
    const grow = (counter: Counter, key: 'statements' | 'refused') => {
      const now = database()[key];
      counter.inc(now - seen[key]);
      seen[key] = now;
    };
    new Counter({
      name: 'latchkey_database_statements_total',
      help: 'Statements sent to PostgreSQL',
      registers: [registry],
      collect() {
        grow(this, 'statements');
      },
    });
    new Counter({
      name: 'latchkey_database_refused_total',
      help: 'Database operations shed with 503 database_busy (wait queue full or wait too long)',
      registers: [registry],
      collect() {
        grow(this, 'refused');
      },
    });
    new Gauge({
      name: 'latchkey_database_operations',
      help: 'Database operations holding a connection (running) or waiting for one (waiting)',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const { running, waiting } = database();
        this.set({ state: 'running' }, running);
        this.set({ state: 'waiting' }, waiting);
      },
    });
  }
  const queueDepth = opts.webhookQueueDepth;
  if (queueDepth) {
    new Gauge({
      name: 'latchkey_webhook_queue_depth',
      help: 'Webhook messages waiting for delivery (pending)',
      registers: [registry],
      async collect() {
        this.set(await queueDepth());
      },
    });
  }
  return {
    registry,
    requests: new Counter({
      name: 'latchkey_http_requests_total',
      help: 'HTTP requests by surface, route pattern, method and status',
      labelNames: ['surface', 'route', 'method', 'status'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'latchkey_http_request_duration_seconds',
      help: 'HTTP request latency by surface and route pattern',
      labelNames: ['surface', 'route', 'method'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    limiterRejections: new Counter({
      name: 'latchkey_rate_limit_rejections_total',
      help: 'Requests refused by a rate limiter, by budget and instance',
      labelNames: ['surface', 'limit', 'instance'],
      registers: [registry],
    }),
    aclDenials: new Counter({
      name: 'latchkey_network_acl_denials_total',
      help: 'Requests refused by an instance network ACL (403 IP_DENIED), by rule',
      labelNames: ['surface', 'instance', 'rule'],
      registers: [registry],
    }),
    webhookDeliveries: new Counter({
      name: 'latchkey_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    webhookRedeliveries: new Counter({
      name: 'latchkey_webhook_redeliveries_total',
      help: 'Webhook messages claimed again after a claim lapsed or was given back unfinished: their earlier attempt may have reached the receiver (a possible duplicate)',
      registers: [registry],
    }),
    protection: new Counter({
      name: 'latchkey_attack_protection_total',
      help: 'Attack protection actions by instance and rule: user_lockout, step_up (risk-based MFA), password_compromised',
      labelNames: ['instance', 'rule'],
      registers: [registry],
    }),
    smsDeliveries: new Counter({
      name: 'latchkey_sms_deliveries_total',
      help: 'SMS delivery outcomes by provider and status: sent, retrying, failed (a send) and delivered, undelivered, failed (a status callback)',
      labelNames: ['provider', 'status'],
      registers: [registry],
    }),
  };
}
