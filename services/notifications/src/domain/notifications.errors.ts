import { AppError } from '@tracker/kit';

/** Every refusal of the notifications context. */
export const notificationsErrors = {
  /** A cursor before the events kept: what followed it is gone (docs/decisions.md, the feed). */
  cursorExpired: (retentionHours: number) =>
    new AppError(
      'cursor_expired',
      `This cursor is older than the events kept (${retentionDays(retentionHours)}): events after it were deleted. Start again without \`after\` (from the oldest event kept) and re-read what you keep from the API.`,
    ),
};

const retentionDays = (hours: number) => (hours % 24 === 0 ? `${hours / 24} day${hours === 24 ? '' : 's'}` : `${hours} hour${hours === 1 ? '' : 's'}`);
