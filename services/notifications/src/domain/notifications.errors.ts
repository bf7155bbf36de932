import { WEBHOOK_LIMITS } from '@tracker/contracts';
import { AppError, forbidden, invalid, notFound } from '@tracker/kit';

/** Every refusal of the notifications context. */
export const notificationsErrors = {
  /** A cursor before the events kept: what followed it is gone (docs/decisions.md, the feed). */
  cursorExpired: (retentionHours: number) =>
    new AppError(
      'cursor_expired',
      `This cursor is older than the events kept (${retentionDays(retentionHours)}): events after it were deleted. Start again without \`after\` (from the oldest event kept) and re-read what you keep from the API.`,
    ),
  /** Webhooks send every event of the workspace: only its admins manage them. */
  adminsOnly: () => forbidden('Only workspace admins manage webhooks.'),
  webhookNotFound: (id: number) => notFound(`Webhook ${id}`),
  deliveryNotFound: (id: number) => notFound(`Delivery ${id} of this webhook`),
  /** The URL is not one this service may send to (docs/decisions.md, no request forgery). */
  urlRefused: (reason: string) => invalid([{ path: 'url', message: reason }], 'The webhook URL is refused.'),
  tooManyWebhooks: () =>
    invalid([{ path: '(body)', message: `a workspace holds at most ${WEBHOOK_LIMITS.perWorkspace} webhooks` }], `This workspace already has ${WEBHOOK_LIMITS.perWorkspace} webhooks: delete one first.`),
  /** Past the live streams one user, or this replica, holds at once. */
  tooManyStreams: (holder: 'user' | 'replica', limit: number) =>
    new AppError(
      'rate_limited',
      holder === 'user'
        ? `Too many live event streams open for this user: at most ${limit} at once. Close one (another tab or device) or retry later.`
        : 'Too many live event streams open on this server. Retry later.',
      { headers: { 'Retry-After': holder === 'user' ? '10' : '5' } },
    ),
  /** The replica is draining: the client reconnects and reaches another. */
  streamsClosing: () => new AppError('service_unavailable', 'This server is shutting down. Reconnect.', { headers: { 'Retry-After': '1' } }),
};

const retentionDays = (hours: number) => (hours % 24 === 0 ? `${hours / 24} day${hours === 24 ? '' : 's'}` : `${hours} hour${hours === 1 ? '' : 's'}`);
