'use client';

import { useTranslations } from 'next-intl';
import { useState, type FormEvent } from 'react';
import {
  ActionCell,
  Alert,
  Badge,
  Button,
  Card,
  CardBody,
  CardHeader,
  ConfirmDialog,
  Field,
  FormDialog,
  Input,
  PageHeader,
  Select,
  Table,
  Td,
  Thead,
  Tr,
  cn,
} from '@/components/ui';
import type { BillingSettings, Plan } from '@/lib/console/billing';
import { api, query } from '@/lib/console/paths';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { Pager, useCursorPages } from './pager';
import { CardList } from './states';
import { useFormError } from './use-form-error';
import type { InstanceResponse } from '@/lib/console/types';

const PAGE_SIZE = 20;
const words = (s: string) => s.split(/[\s,]+/).filter(Boolean);

/** `…/billing`: the instance's payment processor (write-only secrets) and its plans. */
export function BillingPage() {
  const t = useTranslations('billing.console');
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const base = `${api.instance(account.id, instance.id)}/billing`;
  const cursor = useCursorPages([]);
  const plans = useDashboard<InstanceResponse<'GET /billing/plans'>>(
    `${base}/plans${query({ limit: PAGE_SIZE, starting_after: cursor.current })}`,
  );
  const invalidate = useInvalidate();
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Plan | null>(null);

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title={t('title')}
        description={t('description')}
        actions={canWrite && <Button onClick={() => setCreating(true)}>{t('createPlan')}</Button>}
      />
      <ProcessorSettings path={`${base}/settings`} canWrite={canWrite} />
      <Card>
        <CardHeader title={t('plansTitle')} />
        <CardList
          data={plans.data?.data}
          error={plans.error}
          onRetry={plans.reload}
          columns={4}
          rows={3}
          emptyTitle={t('emptyTitle')}
          emptyDescription={t('emptyDescription')}
        >
          {(items) => (
            <Table caption={t('plansTitle')}>
              <Thead columns={[t('name'), t('payer'), t('prices'), t('features')]} actions={canWrite && t('actions')} />
              <tbody aria-busy={plans.loading || undefined}>
                {items.map((plan) => (
                  <Tr key={plan.id} className={cn(plans.loading && 'opacity-60')}>
                    <Td id={`plan-name-${plan.id}`} className="font-medium">
                      {plan.name}
                      <span className="block font-mono text-xs text-zinc-500">{plan.key}</span>
                    </Td>
                    <Td>{plan.payer === 'user' ? t('payerUser') : t('payerOrganization')}</Td>
                    <Td className="font-mono text-xs">
                      {plan.prices.map((p) => (
                        <span key={p.processor_price_id} className="block">
                          {(p.amount / 100).toFixed(2)} {p.currency.toUpperCase()} / {t(p.interval)} · {p.processor_price_id}
                        </span>
                      ))}
                    </Td>
                    <Td>
                      <span className="flex max-w-xs flex-wrap gap-1">
                        {plan.features.map((f) => (
                          <Badge key={f}>{f}</Badge>
                        ))}
                      </span>
                    </Td>
                    {canWrite && (
                      <ActionCell onClick={() => setDeleting(plan)} aria-describedby={`plan-name-${plan.id}`}>
                        {t('delete')}
                      </ActionCell>
                    )}
                  </Tr>
                ))}
              </tbody>
            </Table>
          )}
        </CardList>
        <Pager state={cursor} page={plans.data} loading={plans.loading} />
      </Card>
      {creating && (
        <CreatePlanDialog
          path={`${base}/plans`}
          onClose={() => setCreating(false)}
          onCreated={() => {
            setCreating(false);
            void invalidate(`${base}/plans`);
          }}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        title={t('deleteTitle')}
        description={deleting ? t('deleteBody', { name: deleting.name }) : ''}
        confirmLabel={t('deleteConfirm')}
        onConfirm={async () => {
          if (!deleting) return;
          await mutate('DELETE', `${base}/plans/${deleting.id}`);
          void invalidate(`${base}/plans`);
        }}
      />
    </div>
  );
}

function ProcessorSettings({ path, canWrite }: { path: string; canWrite: boolean }) {
  const t = useTranslations('billing.console');
  const settings = useDashboard<BillingSettings>(path);
  const invalidate = useInvalidate();
  const form = useFormError(['secret_key', 'webhook_signing_secret', 'api_base_url']);
  const [secretKey, setSecretKey] = useState('');
  const [webhookSecret, setWebhookSecret] = useState('');
  const [apiBase, setApiBase] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const current = settings.data;

  function submit(e: FormEvent) {
    e.preventDefault();
    form.clear();
    setSaved(false);
    void form.run(async () => {
      const base = (apiBase ?? current?.api_base_url ?? '').trim();
      await mutate('PATCH', path, {
        ...(secretKey.trim() ? { secret_key: secretKey.trim() } : {}),
        ...(webhookSecret.trim() ? { webhook_signing_secret: webhookSecret.trim() } : {}),
        api_base_url: base || null,
      });
      setSecretKey('');
      setWebhookSecret('');
      setSaved(true);
      void invalidate(path);
    });
  }

  const setBadge = (set: boolean | undefined) => <Badge tone={set ? 'green' : 'neutral'}>{set ? t('isSet') : t('notSet')}</Badge>;
  return (
    <Card>
      <CardHeader title={t('settingsTitle')} description={t('settingsDescription')} />
      <CardBody>
        <form onSubmit={submit} className="flex max-w-xl flex-col gap-4">
          <Field label={t('webhookUrl')}>{(p) => <Input {...p} readOnly value={current?.webhook_url ?? ''} className="font-mono" />}</Field>
          <Field label={t('secretKey')} hint={t('secretKeyHint')} error={form.fieldError('secret_key')}>
            {(p) => (
              <div className="flex items-center gap-2">
                <Input
                  {...p}
                  name="secret_key"
                  type="password"
                  autoComplete="off"
                  disabled={!canWrite}
                  value={secretKey}
                  onChange={(e) => setSecretKey(e.target.value)}
                />
                {setBadge(current?.secret_key_set)}
              </div>
            )}
          </Field>
          <Field label={t('webhookSecret')} hint={t('webhookSecretHint')} error={form.fieldError('webhook_signing_secret')}>
            {(p) => (
              <div className="flex items-center gap-2">
                <Input
                  {...p}
                  name="webhook_signing_secret"
                  type="password"
                  autoComplete="off"
                  disabled={!canWrite}
                  value={webhookSecret}
                  onChange={(e) => setWebhookSecret(e.target.value)}
                />
                {setBadge(current?.webhook_signing_secret_set)}
              </div>
            )}
          </Field>
          <Field label={t('apiBase')} hint={t('apiBaseHint')} error={form.fieldError('api_base_url')}>
            {(p) => (
              <Input
                {...p}
                name="api_base_url"
                disabled={!canWrite}
                value={apiBase ?? current?.api_base_url ?? ''}
                onChange={(e) => setApiBase(e.target.value)}
                spellCheck={false}
              />
            )}
          </Field>
          {form.formError && <Alert tone="error">{form.formError}</Alert>}
          {saved && <Alert tone="success">{t('saved')}</Alert>}
          {canWrite && (
            <div>
              <Button type="submit" disabled={form.busy}>
                {t('save')}
              </Button>
            </div>
          )}
        </form>
      </CardBody>
    </Card>
  );
}

function CreatePlanDialog({ path, onClose, onCreated }: { path: string; onClose: () => void; onCreated: () => void }) {
  const t = useTranslations('billing.console');
  const form = useFormError(['key', 'name', 'payer', 'prices', 'features']);
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [payer, setPayer] = useState<'user' | 'organization'>('user');
  const [priceId, setPriceId] = useState('');
  const [amount, setAmount] = useState('');
  const [currency, setCurrency] = useState('usd');
  const [interval, setInterval] = useState<'month' | 'year'>('month');
  const [features, setFeatures] = useState('');

  const submit = form.handleSubmit(async () => {
    const prices = priceId.trim()
      ? [
          {
            processor_price_id: priceId.trim(),
            amount: Math.round(Number((amount || '0').replace(',', '.')) * 100),
            currency: currency.trim().toLowerCase(),
            interval,
          },
        ]
      : [];
    await mutate('POST', path, { key: key.trim(), name, payer, prices, features: words(features) });
    onCreated();
  });

  return (
    <FormDialog
      open
      onClose={onClose}
      title={t('createPlan')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={t('createSubmit')}
      busy={form.busy}
    >
      <Field label={t('key')} error={form.fieldError('key')}>
        {(p) => <Input {...p} name="key" required value={key} onChange={(e) => setKey(e.target.value)} spellCheck={false} autoFocus />}
      </Field>
      <Field label={t('name')} error={form.fieldError('name')}>
        {(p) => <Input {...p} name="name" required value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label={t('payer')} error={form.fieldError('payer')}>
        {(p) => (
          <Select {...p} name="payer" value={payer} onChange={(e) => setPayer(e.target.value as 'user' | 'organization')}>
            <option value="user">{t('payerUser')}</option>
            <option value="organization">{t('payerOrganization')}</option>
          </Select>
        )}
      </Field>
      <Field label={t('priceId')} error={form.fieldError('prices')}>
        {(p) => (
          <Input
            {...p}
            name="processor_price_id"
            value={priceId}
            onChange={(e) => setPriceId(e.target.value)}
            spellCheck={false}
            placeholder="price_…"
          />
        )}
      </Field>
      <div className="grid grid-cols-3 gap-3">
        <Field label={t('amount')} hint={t('amountHint')}>
          {(p) => <Input {...p} name="amount" inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} />}
        </Field>
        <Field label={t('currency')}>
          {(p) => <Input {...p} name="currency" maxLength={3} value={currency} onChange={(e) => setCurrency(e.target.value)} />}
        </Field>
        <Field label={t('interval')}>
          {(p) => (
            <Select {...p} name="interval" value={interval} onChange={(e) => setInterval(e.target.value as 'month' | 'year')}>
              <option value="month">{t('month')}</option>
              <option value="year">{t('year')}</option>
            </Select>
          )}
        </Field>
      </div>
      <Field label={t('features')} hint={t('featuresHint')} error={form.fieldError('features')}>
        {(p) => <Input {...p} name="features" value={features} onChange={(e) => setFeatures(e.target.value)} spellCheck={false} />}
      </Field>
    </FormDialog>
  );
}
