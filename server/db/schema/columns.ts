import { bigint } from 'drizzle-orm/pg-core';

/** Timestamps are integer milliseconds since the epoch, as the API shows them. */
export const millis = (name: string) => bigint(name, { mode: 'number' });
