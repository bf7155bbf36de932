import { startNotifications, type NotificationsHarness } from './harness';

let h: NotificationsHarness;
beforeAll(async () => {
  h = await startNotifications();
});
afterAll(() => h.close());

test('GET /healthz answers without a ticket; /readyz checks the database', async () => {
  expect(await (await fetch(`${h.url}/healthz`)).json()).toEqual({ status: 'ok', service: 'notifications' });
  const ready = await fetch(`${h.url}/readyz`);
  expect(ready.status).toBe(200);
  expect(await ready.json()).toEqual({ status: 'ready', service: 'notifications', checks: { database: 'ok' } });
});

test('an unknown path is 404 problem+json, also for a signed caller', async () => {
  const ws = h.workspace();
  const res = await h.call('GET', '/api/v1/events/unknown', { as: ws.admin });
  expect(res.status).toBe(404);
  expect(res.body).toMatchObject({ code: 'not_found' });
});
