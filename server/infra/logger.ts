import pino, { type DestinationStream, type Logger } from 'pino';
import { scrub, scrubDeep } from './redact';

export type { Logger };

/**
 * Every log line passes `scrubDeep`, which also turns Errors (under `err` or anywhere
 * else, with their causes) into `{type, message, stack, code, cause, ...}`. It has to:
 * pino runs `formatters.log` before its serializers, so an `err` serializer would only
 * ever see what the formatter left of the Error. (Bindings of `logger.child()` skip
 * `formatters.log`: pino resets the bindings formatter for children.)
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: (obj) => scrubDeep(obj) as Record<string, unknown>,
      },
      serializers: {
        // Already serialised by `formatters.log`; pino's default `err` serializer would
        // treat the plain object as an Error again (type "Object", message with causes).
        err: (err: unknown) => err,
        // The final message, also when pino takes it from an Error (`logger.error(err)`)
        // or formats an object into it (`%o`).
        msg: (msg: unknown) => (typeof msg === 'string' ? scrub(msg) : msg),
      },
    },
    destination,
  );
}
