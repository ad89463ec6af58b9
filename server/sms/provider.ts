import type { SmsStatus } from '../db/schema';
import type { DnsResolver, TargetPolicy } from '../infra/ssrf';

/** What a provider needs to reach its API for one instance: its credentials and the SSRF guard's inputs. */
export interface SmsConnection {
  accountId: string;
  authToken: string;
  /** E.164 sender, or a messaging service that picks one: one of the two is set. */
  from: string | null;
  messagingServiceId: string | null;
  /** Null: the provider's own API. Checked by the SSRF guard like every customer-given URL. */
  apiBaseUrl: string | null;
  /** How long the API has to answer (SMS_PROVIDER_TIMEOUT). */
  timeoutMs: number;
  policy: TargetPolicy;
  resolve: DnsResolver;
  testTrustedCas?: readonly string[];
}

interface OutgoingSms {
  to: string;
  body: string;
  /** Where the provider reports delivery status changes. */
  statusCallbackUrl: string;
}

interface ProviderAccepted {
  providerMessageId: string;
  status: SmsStatus;
}

/** A status change the provider reported (a verified callback). */
export interface ProviderStatusReport {
  providerMessageId: string;
  status: SmsStatus;
  errorCode: string | null;
  error: string | null;
}

/**
 * A refused or failed send. `retryable`: a timeout, a network error, the provider's 5xx or
 * 429, where the same request may succeed later; otherwise (bad number, bad credentials) the
 * message is failed at once.
 */
export class SmsSendError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'SmsSendError';
  }
}

/** A signature that does not verify: the callback is refused (403). */
export class CallbackSignatureInvalid extends Error {}

/**
 * An SMS provider. Twilio is the one built in (twilio.ts); another implements the same
 * operations and joins PROVIDERS.
 */
export interface SmsProvider {
  name: 'twilio';
  send(conn: SmsConnection, message: OutgoingSms): Promise<ProviderAccepted>;
  /** A message's status as the provider has it now (for one whose callback never came); throws SmsSendError. */
  fetchStatus(conn: SmsConnection, providerMessageId: string): Promise<ProviderStatusReport>;
  /** The provider's own status word as ours. */
  mapStatus(raw: string): SmsStatus;
  /**
   * Verifies a status callback (its signature over `url` and the form fields, with the
   * account's auth token) and reads it; throws CallbackSignatureInvalid.
   */
  parseCallback(input: {
    url: string;
    form: Record<string, string>;
    header(name: string): string | undefined;
    authToken: string;
  }): ProviderStatusReport;
}
