import { z } from 'zod';
import { endpoint } from '../../http/endpoint';
import { lightListSchema } from '../../http/pagination';
import type { BapiAuth } from './authenticate';
import { emittedEventTypes } from '../../events/events';

const emittedTypeSchema = z.object({
  object: z.literal('event_type'),
  type: z.string(),
  count: z.number().int(),
  first_emitted_at: z.number().int(),
  last_emitted_at: z.number().int(),
});

export const eventTypes = {
  list: endpoint<BapiAuth>({
    summary: 'Event types this instance has emitted, with counts and first/last times',
    response: lightListSchema(emittedTypeSchema),
    handle: async ({ deps, auth }) => ({
      object: 'list',
      data: await emittedEventTypes(deps, auth.instance.id),
      has_more: false,
    }),
  }),
};
