import { z } from 'zod';
import { Id } from './queues';
import { DeliveryId } from './webhooks';

/**
 * The path parameters of /api/v1, as the published document describes them and as the
 * agent tools take them beside the body's fields. A key names no issue when it is not a
 * key (404), but no key is longer than a queue key, a dash and an int4.
 */
export const IssueKey = z.string().min(1).max(100);

export const PATH_PARAMETERS = {
  key: IssueKey.meta({ description: 'An issue key such as `WEB-1`: the queue key (case-insensitive), a dash and the issue\'s number in the queue.', examples: ['WEB-1'] }),
  queue_id: Id.meta({ description: 'A queue id (an integer from 1 to 2147483647).', examples: [1] }),
  user_id: Id.meta({ description: 'A user id of the caller\'s workspace (an integer from 1 to 2147483647).', examples: [2] }),
  dashboard_id: Id.meta({ description: 'A dashboard id (an integer from 1 to 2147483647).', examples: [1] }),
  token_id: Id.meta({ description: 'The id of one of the caller\'s personal tokens, as GET /api/v1/tokens lists it (an integer from 1 to 2147483647).', examples: [1] }),
  webhook_id: Id.meta({ description: 'A webhook id of the caller\'s workspace (an integer from 1 to 2147483647).', examples: [1] }),
  delivery_id: DeliveryId.meta({ description: 'A delivery id of the webhook, as its delivery log lists it (an integer from 1 to 9007199254740991).', examples: [1] }),
} as const;
export type PathParam = keyof typeof PATH_PARAMETERS;
