import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { twilioSignature } from '../sms/twilio';

interface FakeTwilioMessage {
  sid: string;
  accountSid: string;
  /** The request's HTTP Basic credentials, decoded (`AccountSid:AuthToken`). */
  basicAuth: string | null;
  form: Record<string, string>;
  /** What `GET …/Messages/{sid}.json` answers (Twilio's words: queued, sent, delivered…); set it to move the message on. */
  status: string;
  errorCode?: number;
}

/**
 * A local stand-in for Twilio's Messages API on loopback. It checks HTTP Basic against the
 * account it was made with (401 and Twilio's error 20003 otherwise), records every message,
 * and answers like Twilio (201 with a `SM…` sid, status `queued`). `failNext` answers the
 * next requests with a status (503…) or hangs them (`'hang'`, for timeouts). `GET
 * …/Messages/{sid}.json` answers a message with its `status`.
 * `signedCallback` makes the signed status callback Twilio would post to the message's
 * StatusCallback; `beforeAnswer` lets one arrive before the send is answered.
 */
export async function startFakeTwilio(account: { sid: string; authToken: string }) {
  const messages: FakeTwilioMessage[] = [];
  const requests: { path: string; basicAuth: string | null; status: number }[] = [];
  const state = {
    failNext: [] as (number | 'hang' | { status: number; code: number; message: string })[],
    seq: 0,
    /** Runs after a message is recorded and before the API answers (a status callback that overtakes the answer). */
    beforeAnswer: undefined as ((message: FakeTwilioMessage) => Promise<void>) | undefined,
  };
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const header = req.headers.authorization ?? '';
      const basicAuth = header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString('utf8') : null;
      const answer = (status: number, body: unknown) => {
        requests.push({ path: req.url ?? '', basicAuth, status });
        res.statusCode = status;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(body));
      };
      const read = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\/([^/]+)\.json$/.exec(req.url ?? '');
      if (req.method === 'GET' && read) {
        const found = messages.find((m) => m.sid === read[2]);
        if (basicAuth !== `${account.sid}:${account.authToken}` || read[1] !== account.sid)
          return answer(401, { code: 20003, message: 'Authenticate', status: 401 });
        if (!found) return answer(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
        return answer(200, {
          sid: found.sid,
          account_sid: account.sid,
          to: found.form.To,
          status: found.status,
          error_code: found.errorCode ?? null,
          error_message: found.errorCode ? 'Unreachable destination handset' : null,
        });
      }
      const match = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(req.url ?? '');
      if (req.method !== 'POST' || !match)
        return answer(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
      const fail = state.failNext.shift();
      if (fail === 'hang') {
        requests.push({ path: req.url ?? '', basicAuth, status: 0 });
        hanging.add(res);
        return;
      }
      if (typeof fail === 'number') return answer(fail, { code: 20500, message: 'Internal server error', status: fail });
      if (fail) return answer(fail.status, { code: fail.code, message: fail.message, status: fail.status });
      if (basicAuth !== `${account.sid}:${account.authToken}` || match[1] !== account.sid) {
        return answer(401, { code: 20003, message: 'Authenticate', status: 401 });
      }
      const form = Object.fromEntries(new URLSearchParams(raw));
      const sid = `SM${(++state.seq).toString(16).padStart(32, '0')}`;
      const message: FakeTwilioMessage = { sid, accountSid: match[1]!, basicAuth, form, status: 'queued' };
      messages.push(message);
      const accepted = () =>
        answer(201, {
          sid,
          account_sid: match[1],
          to: form.To,
          from: form.From ?? null,
          body: form.Body,
          status: 'queued',
          error_code: null,
          error_message: null,
        });
      if (!state.beforeAnswer) return accepted();
      state.beforeAnswer(message).then(accepted, () => answer(500, { code: 20500, message: 'Internal server error', status: 500 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  /** The form and signature Twilio would post for a status change of `sid`. */
  function signedCallback(sid: string, status: string, extra: Record<string, string> = {}) {
    const message = messages.find((m) => m.sid === sid);
    if (!message) throw new Error(`No message ${sid}`);
    const url = message.form.StatusCallback!;
    const form: Record<string, string> = {
      AccountSid: account.sid,
      MessageSid: sid,
      SmsSid: sid,
      MessageStatus: status,
      SmsStatus: status,
      To: message.form.To!,
      ApiVersion: '2010-04-01',
      ...extra,
    };
    return { url, form, body: new URLSearchParams(form).toString(), signature: twilioSignature(account.authToken, url, form) };
  }

  return {
    url: `http://127.0.0.1:${port}`,
    messages,
    requests,
    state,
    signedCallback,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.close(() => resolve());
      }),
  };
}
