import pino, { type DestinationStream, type Logger } from 'pino';
import { scrub, scrubDeep } from './redact';

export type { Logger };

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
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((a) => (typeof a === 'string' ? scrub(a) : a)) as Parameters<typeof method>);
        },
      },
      serializers: {
        err: (err: Error & { code?: string }) => ({
          type: err.name,
          code: err.code,
          message: scrub(String(err.message)),
          stack: err.stack ? scrub(err.stack) : undefined,
          cause: err.cause instanceof Error ? scrub(String(err.cause.stack ?? err.cause.message)) : undefined,
        }),
      },
    },
    destination,
  );
}
