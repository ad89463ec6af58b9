import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SmsStatus } from '../db/schema';
import { guardedRequest, OutboundTimeout } from '../http/outbound';
import { TargetRefused } from '../infra/ssrf';
import { CallbackSignatureInvalid, SmsSendError, type SmsConnection, type SmsProvider } from './provider';

const TWILIO_API_BASE = 'https://api.twilio.com';
const MAX_RESPONSE_BYTES = 64 * 1024;

/** Twilio's message statuses (Messages resource, `status`) as ours. */
const STATUSES: Record<string, SmsStatus> = {
  accepted: 'sent',
  scheduled: 'sent',
  queued: 'sent',
  sending: 'sent',
  sent: 'sent',
  delivered: 'delivered',
  read: 'delivered',
  undelivered: 'undelivered',
  failed: 'failed',
  canceled: 'failed',
};

/**
 * Twilio's request signature (X-Twilio-Signature): base64 HMAC-SHA1, keyed with the auth
 * token, over the full URL followed by every POST field's name and value, sorted by name.
 */
export function twilioSignature(authToken: string, url: string, form: Record<string, string>): string {
  const data = Object.keys(form)
    .sort()
    .reduce((acc, key) => acc + key + form[key], url);
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

function signatureMatches(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

function parseJson(body: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(body);
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** One call of Twilio's REST API under `/2010-04-01/Accounts/{AccountSid}`, HTTP Basic with the account and its auth token; its JSON, or an SmsSendError. */
async function twilioCall(
  conn: SmsConnection,
  method: 'GET' | 'POST',
  path: string,
  form?: URLSearchParams,
): Promise<Record<string, unknown>> {
  const base = (conn.apiBaseUrl ?? TWILIO_API_BASE).replace(/\/+$/, '');
  let res;
  try {
    res = await guardedRequest({
      url: `${base}/2010-04-01/Accounts/${encodeURIComponent(conn.accountId)}${path}`,
      method,
      headers: {
        authorization: `Basic ${Buffer.from(`${conn.accountId}:${conn.authToken}`).toString('base64')}`,
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        accept: 'application/json',
      },
      body: form?.toString() ?? '',
      timeoutMs: conn.timeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      policy: conn.policy,
      resolve: conn.resolve,
      testTrustedCas: conn.testTrustedCas,
    });
  } catch (err) {
    if (err instanceof OutboundTimeout) throw new SmsSendError(`Twilio did not answer within ${conn.timeoutMs / 1000} s.`, 'timeout', true);
    if (err instanceof TargetRefused) throw new SmsSendError(`The API base is not allowed: ${err.message}`, 'target_refused', false);
    throw new SmsSendError(`Twilio could not be reached: ${err instanceof Error ? err.message : String(err)}`, 'network_error', true);
  }
  const body = parseJson(res.body);
  if (res.status >= 200 && res.status < 300 && typeof body.sid === 'string') return body;
  const code = body.code !== undefined && body.code !== null ? String(body.code) : `http_${res.status}`;
  const said = typeof body.message === 'string' ? body.message : `HTTP ${res.status}`;
  // 5xx and 429: Twilio may take the same request later; any other answer is final.
  throw new SmsSendError(`Twilio refused the message: ${said}`, code, res.status >= 500 || res.status === 429);
}

/** The Messages API: `POST …/Messages.json` to send, `GET …/Messages/{MessageSid}.json` to read a status. */
const twilioProvider: SmsProvider = {
  name: 'twilio',

  async send(conn, message) {
    const form = new URLSearchParams({ To: message.to, Body: message.body, StatusCallback: message.statusCallbackUrl });
    if (conn.messagingServiceId) form.set('MessagingServiceSid', conn.messagingServiceId);
    else if (conn.from) form.set('From', conn.from);
    const body = await twilioCall(conn, 'POST', '/Messages.json', form);
    return { providerMessageId: String(body.sid), status: STATUSES[String(body.status)] ?? 'sent' };
  },

  async fetchStatus(conn, providerMessageId) {
    const body = await twilioCall(conn, 'GET', `/Messages/${encodeURIComponent(providerMessageId)}.json`);
    const errorCode = body.error_code !== undefined && body.error_code !== null ? String(body.error_code) : null;
    return {
      providerMessageId,
      status: twilioProvider.mapStatus(String(body.status)),
      errorCode,
      error: errorCode ? (typeof body.error_message === 'string' ? body.error_message : `Twilio error ${errorCode}`) : null,
    };
  },

  mapStatus: (raw) => STATUSES[raw] ?? 'sent',

  parseCallback({ url, form, header, authToken }) {
    const given = header('x-twilio-signature');
    if (!given || !signatureMatches(twilioSignature(authToken, url, form), given)) {
      throw new CallbackSignatureInvalid('The X-Twilio-Signature header does not match.');
    }
    const sid = form.MessageSid ?? form.SmsSid;
    if (!sid) throw new CallbackSignatureInvalid('The callback names no MessageSid.');
    const errorCode = form.ErrorCode ? String(form.ErrorCode) : null;
    return {
      providerMessageId: sid,
      status: twilioProvider.mapStatus(form.MessageStatus ?? form.SmsStatus ?? ''),
      errorCode,
      error: errorCode ? (form.ErrorMessage ?? `Twilio error ${errorCode}`) : null,
    };
  },
};

export const PROVIDERS: Record<string, SmsProvider> = { twilio: twilioProvider };
