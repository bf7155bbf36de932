import { z } from 'zod';
import { Id } from './queues';

/**
 * The path parameters of /api/v1, as the published document describes them and as the
 * agent tools take them beside the body's fields. A key names no issue when it is not a
 * key (404), but no key is longer than a queue key, a dash and an int4.
 */
export const IssueKey = z.string().min(1).max(100);

export const PATH_PARAMETERS = {
  key: IssueKey.meta({ description: 'An issue key such as `WEB-12` (queue key, case-insensitive, then the number).', examples: ['WEB-12'] }),
  queue_id: Id.meta({ description: 'A queue id.', examples: [3] }),
  user_id: Id.meta({ description: 'A user id.', examples: [7] }),
  dashboard_id: Id.meta({ description: 'A dashboard id.', examples: [2] }),
} as const;
export type PathParam = keyof typeof PATH_PARAMETERS;
