import { beforeAll, describe, expect, it } from 'vitest';
import { claimedConsole } from '../testing/console-client';
import { fapiClient } from '../testing/fapi-client';
import { mintNewUserSession } from '../testing/fapi-helpers';
import { sharedHarness } from '../testing/harness';
import { and, eq } from 'drizzle-orm';
import { dailyMetricCounts, dailyMetrics } from '../db/schema';
import { dayOf, METRIC_SHARDS, rollUpActivity } from './metrics';

const h = sharedHarness();
const DAY = 86_400_000;
let owner: Awaited<ReturnType<typeof claimedConsole>>;
beforeAll(async () => {
  owner = await claimedConsole(h);
});

/** The dashboard's metrics of an instance, as the console reads them. */
async function metricsOf(instanceId: string, days = '7') {
  const res = await owner.b.dash('GET', `/accounts/${owner.accountId}/instances/${instanceId}/metrics?days=${days}`);
  expect(res.status).toBe(200);
  return res.body;
}
const today = (series: { value: number }[]) => series.at(-1)!.value;

describe('instance metrics', () => {
  it('counts users, sign-ins and failures as they happen, and today’s active users after the roll-up', async () => {
    const created = await owner.b.dash('POST', `/accounts/${owner.accountId}/instances`, {
      body: { name: 'Metrics', environment: 'test' },
    });
    const instanceId: string = created.body.id;
    const key = (await owner.b.dash('POST', `/accounts/${owner.accountId}/instances/${instanceId}/keys`, { body: { scopes: '*' } })).body
      .secret;

    const before = await metricsOf(instanceId);
    expect(before).toMatchObject({ object: 'instance_metrics', days: 7 });
    expect(before.series.users_created).toHaveLength(7);
    expect(today(before.series.users_created)).toBe(0);
    expect(before.checklist).toEqual({
      secret_key_used: false,
      first_user: false,
      first_sign_in: false,
      webhook_endpoint: false,
      branding: false,
      production_instance: false,
      custom_domain: false,
    });

    await mintNewUserSession(h, key);
    await mintNewUserSession(h, key);
    await h.call('POST', '/v1/users', { key, body: { email_address: ['pw@example.com'], password: 'a long enough passphrase' } });
    const browser = fapiClient(h, instanceId, { publishableKey: created.body.publishable_key });
    const started = await browser.call('POST', '/v1/client/sign_ins', { body: { identifier: 'pw@example.com' } });
    const wrong = await browser.call('POST', `/v1/client/sign_ins/${started.body.response.id}/attempt_first_factor`, {
      body: { strategy: 'password', password: 'not the passphrase' },
    });
    expect(wrong.status).toBe(422);

    const counted = await metricsOf(instanceId);
    expect(today(counted.series.users_created)).toBe(3);
    expect(today(counted.series.sign_ins)).toBe(2);
    expect(today(counted.series.sign_in_failures)).toBe(1);
    expect(today(counted.series.daily_active_users)).toBe(0); // gauges wait for the roll-up
    expect(counted.checklist).toMatchObject({
      secret_key_used: true,
      first_user: true,
      first_sign_in: true,
      branding: false,
      production_instance: false,
    });
    // A live instance in the same account ticks the production step of the test instance's checklist.
    await owner.b.dash('POST', `/accounts/${owner.accountId}/instances`, { body: { name: 'Metrics live', environment: 'live' } });
    expect((await metricsOf(instanceId)).checklist).toMatchObject({ production_instance: true });
    await owner.b.dash('PATCH', `/accounts/${owner.accountId}/instances/${instanceId}/branding`, {
      body: { support_email: 'help@example.com' },
    });
    expect((await metricsOf(instanceId)).checklist).toMatchObject({ branding: true });

    await rollUpActivity(h.runtime.deps);
    const rolled = await metricsOf(instanceId);
    expect(today(rolled.series.daily_active_users)).toBe(2);
    expect(today(rolled.series.monthly_active_users)).toBe(2);
    expect(today(rolled.series.active_sessions)).toBe(2);
    expect(today(rolled.series.total_users)).toBe(3);

    // A day later: yesterday keeps its figures; today starts at zero until something happens.
    h.clock.advance(DAY);
    const nextDay = await metricsOf(instanceId, '30');
    expect(nextDay.series.users_created).toHaveLength(30);
    expect(nextDay.series.users_created.at(-2).value).toBe(3);
    expect(today(nextDay.series.users_created)).toBe(0);
    expect(nextDay.series.users_created.at(-1).date - nextDay.series.users_created.at(-2).date).toBe(DAY);
  });

  it('spreads a counter over rows, so concurrent sign-ins do not queue on one, and reads their sum with the older table’s', async () => {
    const created = await owner.b.dash('POST', `/accounts/${owner.accountId}/instances`, { body: { name: 'Busy', environment: 'test' } });
    const instanceId: string = created.body.id;
    const key = (await owner.b.dash('POST', `/accounts/${owner.accountId}/instances/${instanceId}/keys`, { body: { scopes: '*' } })).body
      .secret;
    // A node of the previous release, mid rolling upgrade, still adds to daily_metrics.
    await h.runtime.deps.db.insert(dailyMetrics).values({ instanceId, metric: 'sign_ins', day: dayOf(h.clock.now()), value: 2 });
    await Promise.all(Array.from({ length: 40 }, () => mintNewUserSession(h, key)));
    const counted = await metricsOf(instanceId);
    expect(today(counted.series.sign_ins)).toBe(42);
    expect(today(counted.series.users_created)).toBe(40);
    const rows = await h.runtime.deps.db
      .select()
      .from(dailyMetricCounts)
      .where(and(eq(dailyMetricCounts.instanceId, instanceId), eq(dailyMetricCounts.metric, 'sign_ins')));
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.length).toBeLessThanOrEqual(METRIC_SHARDS);
    expect(rows.reduce((sum, r) => sum + r.value, 0)).toBe(40);
  });

  it('refuses other periods and other accounts’ instances', async () => {
    const instanceId = (await owner.b.dash('GET', `/accounts/${owner.accountId}/instances`)).body.data[0]?.id;
    const base = `/accounts/${owner.accountId}/instances/${instanceId}/metrics`;
    expect((await owner.b.dash('GET', `${base}?days=365`)).status).toBe(422);
    const otherAccount = (await owner.b.dash('POST', '/accounts', { body: { name: 'Elsewhere' } })).body.id;
    const other = (await owner.b.dash('POST', `/accounts/${otherAccount}/instances`, { body: { name: 'Theirs' } })).body.id;
    expect((await owner.b.dash('GET', `/accounts/${otherAccount}/instances/${other}/metrics`)).status).toBe(200);
    expect((await owner.b.dash('GET', `/accounts/${owner.accountId}/instances/${other}/metrics`)).status).toBe(404);
  });
});
