import { createHash } from 'node:crypto';
import type { Deps } from '../deps';
import { validationError } from '../http/errors';
import { guardedRequest, outboundNetwork, targetPolicy } from '../http/outbound';
import type { InstanceContext } from '../instances/instances';

/**
 * Breached and common passwords (attack protection): refused with 422 VALIDATION_FAILED,
 * reason `password_compromised`. Offline: @zxcvbn-ts/language-common's list of common
 * passwords (ignoring case). Optionally a k-anonymity range API (HIBP's protocol: only the
 * first 5 hex digits of the SHA-1 leave the server): its failure or slowness never blocks.
 */

let common: Promise<Set<string>> | null = null;

/** Loaded once, on first use (about 50 000 entries). */
function commonPasswords(): Promise<Set<string>> {
  common ??= import('@zxcvbn-ts/language-common').then(
    ({ dictionary }) => new Set(dictionary['passwords-common'].map((p) => p.toLowerCase())),
  );
  return common;
}

const RANGE_API_TIMEOUT_MS = 1_500;
const RANGE_API_MAX_BYTES = 512 * 1024;

type D = Pick<Deps, 'config' | 'dns' | 'testTrustedCas' | 'logger' | 'metrics'>;

/** Whether the range API lists the password; false when it cannot say (unreachable, refused, slow, odd answer). */
async function listedByRangeApi(deps: D, instance: InstanceContext, url: string, password: string): Promise<boolean> {
  const sha1 = createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();
  const prefix = sha1.slice(0, 5);
  const suffix = sha1.slice(5);
  try {
    const res = await guardedRequest({
      url: `${url.replace(/\/+$/, '')}/${prefix}`,
      method: 'GET',
      headers: { accept: 'text/plain', 'add-padding': 'true', 'user-agent': 'Latchkey' },
      body: '',
      timeoutMs: RANGE_API_TIMEOUT_MS,
      maxResponseBytes: RANGE_API_MAX_BYTES,
      policy: targetPolicy(deps.config, instance.environment),
      ...outboundNetwork(deps),
    });
    if (res.status !== 200) throw new Error(`status ${res.status}`);
    return res.body.split('\n').some((line) => {
      const [hash, count] = line.trim().split(':');
      return hash?.toUpperCase() === suffix && Number(count) > 0;
    });
  } catch (err) {
    deps.logger.warn(
      { err: err instanceof Error ? err.message : String(err), instance_id: instance.id },
      'breached-password range API unavailable; offline check only',
    );
    return false;
  }
}

/** Throws 422 `password_compromised` for a common or breached password when the instance checks for them. */
export async function rejectCompromisedPassword(deps: D, instance: InstanceContext, password: string): Promise<void> {
  const policy = instance.settings.attack_protection.breached_passwords;
  if (!policy.enabled) return;
  const compromised =
    (await commonPasswords()).has(password.toLowerCase()) ||
    (policy.range_api_url !== null && (await listedByRangeApi(deps, instance, policy.range_api_url, password)));
  if (!compromised) return;
  deps.metrics.protection.inc({ instance: instance.id, rule: 'password_compromised' });
  throw validationError(
    'password',
    'password_compromised',
    'This password has appeared in a data breach or is too common; choose another.',
  );
}
