import nodemailer from 'nodemailer';
import { scrub } from './redact';

export interface OutgoingEmail {
  from: string;
  to: string;
  subject: string;
  html: string;
  text: string;
  headers?: Record<string, string>;
}

/** Delivers one email or throws. `deps.mailer` is null when emails stay in the dev outbox. */
export interface Mailer {
  send(message: OutgoingEmail): Promise<void>;
  close?(): void;
}

/** SMTP through nodemailer, from SMTP_URL (`smtp://` with STARTTLS when offered, `smtps://` for TLS). */
export function createSmtpMailer(smtpUrl: string): Mailer {
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    // Bounded, so a stuck server turns into a failed (and later retried) email.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    logger: false,
    debug: false,
  });
  return {
    async send(m) {
      await transport.sendMail({ from: m.from, to: m.to, subject: m.subject, html: m.html, text: m.text, headers: m.headers });
    },
    close: () => transport.close(),
  };
}

/**
 * A delivery error as it may be stored and logged: its code and message, without the
 * SMTP credentials or anything shaped like a secret.
 */
export function describeDeliveryError(err: unknown, smtpUrl?: string): string {
  const e = err as { code?: unknown; responseCode?: unknown; message?: unknown };
  let message = typeof e?.message === 'string' ? e.message : String(err);
  if (smtpUrl) {
    try {
      const u = new URL(smtpUrl);
      for (const s of [u.password, safeDecode(u.password), u.username, safeDecode(u.username)]) {
        if (s && s.length >= 3) message = message.split(s).join('[REDACTED]');
      }
    } catch {
      // not a URL: nothing to strip
    }
  }
  const code = typeof e?.code === 'string' ? e.code : typeof e?.responseCode === 'number' ? String(e.responseCode) : null;
  const text = scrub(`${code && !message.startsWith(code) ? `${code}: ` : ''}${message}`)
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 500 ? `${text.slice(0, 499)}…` : text;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
