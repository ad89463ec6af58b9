import type { z } from 'zod';
import { jsonResult, type Endpoint, type EndpointContext } from '../../../http/endpoint';
import { validationError } from '../../../http/errors';
import { clerkListParams, inClerkMode } from './compat';

/**
 * Clerk's list mode. Under the Clerk-API-Version header a list accepts `offset` and the
 * SDK's extra parameters (`paginated`, `order_by`, `requesting_user_id`, `expired_token`,
 * `request_origin`; the dialect's middleware takes them off the URL, so the list's own
 * strict query schema and its OpenAPI description are unchanged) and answers
 * `{data, total_count}`. Without the header the list is exactly Latchkey's.
 *
 * The wrapped list is walked in-process with its own cursor (no page number exists in the
 * domain), at most MAX_SCAN rows: `total_count` is exact up to that many and says
 * MAX_SCAN beyond.
 */
export const MAX_SCAN = 10_000;
const WALK_PAGE = 100;

interface Page {
  data: { id: string }[];
  has_more: boolean;
  next_cursor?: string | null;
}

type ListQuery = { limit: number; starting_after?: string } & Record<string, unknown>;

function offsetOf(raw: string | undefined): number {
  if (raw === undefined) return 0;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > MAX_SCAN) throw validationError('offset', 'invalid', `offset must be an integer from 0 to ${MAX_SCAN}.`);
  return n;
}

/**
 * The same list, answering Clerk's list mode (see above). `bareArray`: Clerk answers this
 * list as a plain array unless `paginated` is asked (GET /v1/users; the SDK counts through
 * /v1/users/count).
 */
export function clerkList<Auth>(ep: Endpoint<Auth, never, ListQuery>, opts: { bareArray?: boolean } = {}): Endpoint<Auth, never, ListQuery> {
  const shape = (ep.query as unknown as z.ZodObject).shape as Record<string, z.ZodType>;
  return {
    ...ep,
    handle: async (ctx: EndpointContext<Auth, never, ListQuery>) => {
      if (!inClerkMode()) return ep.handle(ctx);
      const params = clerkListParams();
      const offset = offsetOf(params.offset);
      const paginated = params.paginated === 'true' || !opts.bareArray;
      const q: ListQuery = { ...ctx.query };
      // Clerk writes ascending order as `+field`; a list that sorts takes its own values only.
      if (params.order_by && shape.order_by) {
        const normalized = params.order_by.replace(/^\+/, '');
        if (shape.order_by.safeParse(normalized).success) q.order_by = normalized;
      }
      const want = offset + q.limit;
      const kept: unknown[] = [];
      let total = 0;
      let cursor = q.starting_after;
      for (;;) {
        const page = (await ep.handle({ ...ctx, query: { ...q, limit: WALK_PAGE, starting_after: cursor } })) as Page;
        for (const item of page.data) {
          if (total >= offset && total < want) kept.push(item);
          total += 1;
        }
        const last = page.data[page.data.length - 1];
        if (!page.has_more || !last || total >= MAX_SCAN) break;
        cursor = page.next_cursor ?? last.id;
      }
      return jsonResult(paginated ? { data: kept, total_count: total } : kept, 200);
    },
  };
}
