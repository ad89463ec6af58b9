import { z } from 'zod';

const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

/** `limit` (clamped to 100) and `starting_after`, the cursor of the previous page. */
export const pageQuery = {
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .meta({ maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: `Page size; larger values are read as ${MAX_PAGE_SIZE}.` })
    .optional()
    .transform((v) => Math.min(v ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)),
  starting_after: z.string().min(1).max(64).optional(),
};

export interface CursorPage<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export const cursorPageSchema = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), has_more: z.boolean(), next_cursor: z.string().nullable() });

export const lightListSchema = <T extends z.ZodType>(item: T) =>
  z.object({ object: z.literal('list'), data: z.array(item), has_more: z.boolean() });
