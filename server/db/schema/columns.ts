import { bigint } from 'drizzle-orm/pg-core';

/** Timestamps are integer milliseconds since the epoch, as the API shows them. */
export const millis = (name: string) => bigint(name, { mode: 'number' });

/** `created_at` and `updated_at`, set by the code that writes the row. */
export const timestamps = () => ({ createdAt: millis('created_at').notNull(), updatedAt: millis('updated_at').notNull() });
