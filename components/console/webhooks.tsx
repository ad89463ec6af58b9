'use client';

import { useTranslations } from 'next-intl';
import { useState, type FormEvent } from 'react';
import {
  Alert,
  Badge,
  Button,
  Card,
  CardBody,
  CardHeader,
  Checkbox,
  ConfirmDialog,
  Dialog,
  Field,
  FormDialog,
  Input,
  PageHeader,
  SecretValue,
  Select,
  Td,
  Tr,
  cn,
  focusRing,
} from '@/components/ui';
import { requestJson } from '@/lib/api-client';
import { useDates } from '@/lib/console/format';
import { query } from '@/lib/console/paths';
import { EVENT_TYPES, type CreatedWebhookEndpoint, type WebhookEndpoint, type WebhookSecret } from '@/lib/console/webhooks';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { useConsole } from './console-context';
import { useInstance, useInstanceApi } from './instance-context';
import { AllOrSome, toggled } from './all-or-some';
import { Pager, useCursorPages } from './pager';
import { CardTable } from './states';
import { useActions } from './use-actions';
import { useFormError } from './use-form-error';
import { WebhookDeliveries } from './webhook-deliveries';
import type { InstanceResponse } from '@/lib/console/types';

/** Event types an endpoint can subscribe to (webhook.test only ever goes to the endpoint it is sent to). */
const SUBSCRIBABLE = EVENT_TYPES.filter((t) => t !== 'webhook.test');

/** `…/webhooks`: the instance's webhook endpoints, their secret, and each one's delivery log. */
export function Webhooks() {
  const t = useTranslations('webhooks');
  const { canWrite } = useConsole();
  const instance = useInstance();
  const base = useInstanceApi('webhook_endpoints');
  const cursor = useCursorPages([]);
  const list = useDashboard<InstanceResponse<'GET /webhook_endpoints'>>(`${base}${query({ limit: 20, starting_after: cursor.current })}`);
  const invalidate = useInvalidate();
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedWebhookEndpoint | null>(null);
  const endpoints = list.data?.data;
  const selected = endpoints?.find((e) => e.id === selectedId) ?? endpoints?.[0];

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title={t('title')}
        description={t('description', { name: instance.name })}
        actions={canWrite && <Button onClick={() => setCreating(true)}>{t('add')}</Button>}
      />
      <Card className="overflow-hidden">
        <CardTable
          data={endpoints}
          error={list.error}
          onRetry={list.reload}
          columns={4}
          rows={2}
          emptyTitle={t('emptyTitle')}
          emptyDescription={t('emptyDescription')}
          emptyAction={canWrite && <Button onClick={() => setCreating(true)}>{t('add')}</Button>}
          caption={t('title')}
          headings={[t('url'), t('eventTypes'), t('status')]}
          row={(e) => (
            <Tr key={e.id}>
              <Td className="max-w-md">
                <button
                  type="button"
                  aria-current={selected?.id === e.id || undefined}
                  onClick={() => setSelectedId(e.id)}
                  className={cn('flex flex-col items-start gap-0.5 rounded text-left', focusRing)}
                >
                  <span
                    className={cn(
                      'break-all font-mono text-xs',
                      selected?.id === e.id && 'font-semibold text-indigo-700 dark:text-indigo-300',
                    )}
                  >
                    {e.url}
                  </span>
                  {e.description && <span className="text-xs text-zinc-600 dark:text-zinc-400">{e.description}</span>}
                </button>
              </Td>
              <Td>
                <EventTypeBadges types={e.event_types} />
              </Td>
              <Td>
                <EndpointStatus endpoint={e} />
              </Td>
            </Tr>
          )}
        />
        <Pager state={cursor} page={list.data} loading={list.loading} />
      </Card>
      {selected && (
        <EndpointDetail
          key={selected.id}
          endpoint={selected}
          onDeleted={() => {
            setSelectedId(null);
            void invalidate(base);
          }}
        />
      )}
      {creating && (
        <EndpointDialog
          onClose={() => setCreating(false)}
          onSaved={(e) => {
            setCreating(false);
            setCreated(e as CreatedWebhookEndpoint);
            setSelectedId(e.id);
            void invalidate(base);
          }}
        />
      )}
      <SecretDialog
        open={created !== null}
        onClose={() => setCreated(null)}
        title={t('createdTitle')}
        secret={created?.secret ?? ''}
        warning={t('createdWarning')}
      />
    </div>
  );
}

function EventTypeBadges({ types }: { types: string[] }) {
  const t = useTranslations('webhooks');
  if (types.includes('*')) {
    // In a span: a bare badge in a flex column stretches across the card.
    return (
      <span className="flex">
        <Badge tone="indigo">{t('allEvents')}</Badge>
      </span>
    );
  }
  return (
    <span className="flex max-w-sm flex-wrap gap-1">
      {types.slice(0, 4).map((type) => (
        <Badge key={type}>{type}</Badge>
      ))}
      {types.length > 4 && <Badge>{t('moreEvents', { count: types.length - 4 })}</Badge>}
    </span>
  );
}

function EndpointStatus({ endpoint }: { endpoint: WebhookEndpoint }) {
  const t = useTranslations('webhooks');
  if (endpoint.disabled) {
    return <Badge tone="red">{endpoint.disabled_reason ? t(`disabledReason.${endpoint.disabled_reason}`) : t('disabled')}</Badge>;
  }
  return endpoint.failing_since ? <Badge tone="amber">{t('failing')}</Badge> : <Badge tone="green">{t('enabled')}</Badge>;
}

function EndpointDetail({ endpoint, onDeleted }: { endpoint: WebhookEndpoint; onDeleted: () => void }) {
  const t = useTranslations('webhooks');
  const dates = useDates();
  const { canWrite } = useConsole();
  const endpoints = useInstanceApi('webhook_endpoints');
  const path = `${endpoints}/${endpoint.id}`;
  const invalidate = useInvalidate();
  /** The endpoint changed: the list (which the detail shows it from) again. */
  const changed = () => invalidate(endpoints, { exact: true });
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [rotating, setRotating] = useState(false);
  const [shown, setShown] = useState<{ title: string; secret: string; warning?: string } | null>(null);
  const { busy, act, alert } = useActions<'test' | 'toggle' | 'reveal'>();
  // A test: webhook.test, or an example of a type the endpoint subscribes to.
  const testTypes = ['webhook.test', ...(endpoint.event_types.includes('*') ? SUBSCRIBABLE : endpoint.event_types)];
  const [testType, setTestType] = useState('webhook.test');

  return (
    <Card>
      <CardHeader
        title={<span className="break-all font-mono text-sm">{endpoint.url}</span>}
        description={t('detailDescription', { created: dates.dateTime(endpoint.created_at) })}
        actions={
          canWrite && (
            <div className="flex flex-wrap gap-2">
              <Select
                aria-label={t('testType')}
                value={testType}
                onChange={(e) => setTestType(e.target.value)}
                options={testTypes}
                className="h-8 w-56 text-sm"
              />
              <Button
                variant="secondary"
                size="sm"
                loading={busy === 'test'}
                disabled={endpoint.disabled}
                onClick={() =>
                  act('test', async () => {
                    await mutate('POST', `${path}/test`, testType === 'webhook.test' ? {} : { event_type: testType });
                    void invalidate(`${path}/deliveries`);
                    return t('testSent');
                  })
                }
              >
                {t('sendTest')}
              </Button>
              <Button
                variant="secondary"
                size="sm"
                loading={busy === 'toggle'}
                onClick={() =>
                  act('toggle', async () => {
                    await mutate('PATCH', path, { disabled: !endpoint.disabled });
                    await changed();
                  })
                }
              >
                {endpoint.disabled ? t('enable') : t('disable')}
              </Button>
              <Button variant="secondary" size="sm" onClick={() => setEditing(true)}>
                {t('edit')}
              </Button>
              <Button variant="ghost" size="sm" onClick={() => setDeleting(true)}>
                {t('delete')}
              </Button>
            </div>
          )
        }
      />
      <CardBody className="flex flex-col gap-6">
        {alert}
        {endpoint.disabled && endpoint.disabled_reason && (
          <Alert tone="warning">{t(`disabledExplanation.${endpoint.disabled_reason}`)}</Alert>
        )}
        <section className="flex flex-col gap-2">
          <h3 className="text-sm font-semibold">{t('subscribedTo')}</h3>
          <EventTypeBadges types={endpoint.event_types} />
        </section>
        {canWrite && (
          <section className="flex flex-col gap-2">
            <h3 className="text-sm font-semibold">{t('signingSecret')}</h3>
            <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('signingSecretDescription')}</p>
            <div className="flex flex-wrap gap-2">
              <Button
                variant="secondary"
                size="sm"
                loading={busy === 'reveal'}
                onClick={() =>
                  act('reveal', async () => {
                    const s = await mutateGet<WebhookSecret>(`${path}/secret`);
                    setShown({ title: t('secretTitle'), secret: s.secret });
                  })
                }
              >
                {t('reveal')}
              </Button>
              <Button variant="secondary" size="sm" onClick={() => setRotating(true)}>
                {t('rotate')}
              </Button>
            </div>
          </section>
        )}
        <WebhookDeliveries path={path} disabled={endpoint.disabled} />
      </CardBody>
      {editing && (
        <EndpointDialog
          endpoint={endpoint}
          onClose={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            void changed();
          }}
        />
      )}
      <ConfirmDialog
        open={deleting}
        onClose={() => setDeleting(false)}
        title={t('deleteTitle')}
        description={t('deleteDescription', { url: endpoint.url })}
        confirmLabel={t('delete')}
        onConfirm={async () => {
          await mutate('DELETE', path);
          onDeleted();
        }}
      />
      <ConfirmDialog
        open={rotating}
        onClose={() => setRotating(false)}
        title={t('rotateTitle')}
        description={t('rotateDescription')}
        confirmLabel={t('rotate')}
        onConfirm={async () => {
          const s = await mutate<WebhookSecret>('POST', `${path}/secret/rotate`);
          setShown({ title: t('rotatedTitle'), secret: s.secret, warning: t('rotatedWarning') });
        }}
      />
      <SecretDialog
        open={shown !== null}
        onClose={() => setShown(null)}
        title={shown?.title ?? ''}
        secret={shown?.secret ?? ''}
        warning={shown?.warning}
      />
    </Card>
  );
}

/** The reveal route: a GET read on demand (admins only), kept in the dialog's state only while it is open. */
async function mutateGet<T>(path: string): Promise<T> {
  return (await requestJson<T>(path)).body;
}

function SecretDialog({
  open,
  onClose,
  title,
  secret,
  warning,
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  secret: string;
  warning?: string;
}) {
  const t = useTranslations('webhooks');
  return (
    <Dialog open={open} onClose={onClose} title={title}>
      <div className="flex flex-col gap-4">
        {warning && <Alert tone="warning">{warning}</Alert>}
        <SecretValue value={secret} label={t('signingSecret')} />
        <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('verifyHint')}</p>
        <div className="flex justify-end">
          <Button onClick={onClose}>{t('done')}</Button>
        </div>
      </div>
    </Dialog>
  );
}

/** Mounted on opening, so its state starts from `endpoint` (none: a new endpoint). */
function EndpointDialog({
  endpoint,
  onClose,
  onSaved,
}: {
  endpoint?: WebhookEndpoint;
  onClose: () => void;
  onSaved: (e: WebhookEndpoint) => void;
}) {
  const t = useTranslations('webhooks');
  const path = useInstanceApi('webhook_endpoints');
  const { environment } = useInstance();
  const form = useFormError(['url', 'description', 'event_types']);
  const everything = !endpoint || endpoint.event_types.includes('*');
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [all, setAll] = useState(everything);
  const [types, setTypes] = useState<Set<string>>(new Set(everything ? [] : endpoint.event_types));
  const [typesError, setTypesError] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    form.clear();
    setTypesError(null);
    if (!all && types.size === 0) {
      setTypesError(t('eventTypesRequired'));
      return;
    }
    const body = { url: url.trim(), description: description.trim(), event_types: all ? ['*'] : [...types].sort() };
    void form.run(async () =>
      onSaved(
        endpoint
          ? await mutate<WebhookEndpoint>('PATCH', `${path}/${endpoint.id}`, body)
          : await mutate<WebhookEndpoint>('POST', path, body),
      ),
    );
  }

  return (
    <FormDialog
      open
      onClose={onClose}
      title={endpoint ? t('editTitle') : t('addTitle')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={endpoint ? t('save') : t('add')}
      busy={form.busy}
    >
      <Field label={t('url')} hint={environment === 'test' ? t('urlHintTest') : t('urlHint')} error={form.fieldError('url')}>
        {(p) => (
          <Input
            {...p}
            name="url"
            type="url"
            inputMode="url"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            placeholder="https://example.com/webhooks"
            autoFocus
            required
          />
        )}
      </Field>
      <Field label={t('descriptionLabel')} error={form.fieldError('description')}>
        {(p) => <Input {...p} name="description" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={512} />}
      </Field>
      <AllOrSome
        legend={t('eventTypes')}
        name="event-mode"
        all={all}
        onAll={setAll}
        allLabel={t('allEventsOption')}
        someLabel={t('someEventsOption')}
        error={typesError ?? form.fieldError('event_types')}
      >
        <div className="grid max-h-64 grid-cols-1 gap-1 overflow-y-auto rounded-md p-3 ring-1 ring-inset ring-zinc-200 sm:grid-cols-2 dark:ring-zinc-800">
          {SUBSCRIBABLE.map((type) => (
            <Checkbox
              key={type}
              label={type}
              checked={types.has(type)}
              onChange={(e) => setTypes((current) => toggled(current, type, e.target.checked))}
              className="shrink-0"
            />
          ))}
        </div>
      </AllOrSome>
    </FormDialog>
  );
}
