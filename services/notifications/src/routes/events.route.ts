import type { Router } from 'express';
import { contextOf } from '@tracker/authz';
import { sendJsonText } from '@tracker/kit';
import { cursorOf } from '../domain/feed.rules';
import type { NotificationsDeps } from '../domain/deps';
import { listEvents } from '../domain/list-events.use-case';
import { parseFeedQuery } from './feed-query';

export function eventsRoutes(router: Router, deps: NotificationsDeps): void {
  router.get('/api/v1/events', async (req, res) => {
    const query = parseFeedQuery(req.query as Record<string, unknown>);
    const page = await listEvents(deps, contextOf(res), query);
    // The events are kept as the JSON they are served as: joined, not parsed and written again.
    sendJsonText(res, `{"items":[${page.items.map((item) => item.payload).join(',')}],"next_cursor":${JSON.stringify(cursorOf(page.next))}}`);
  });
}
