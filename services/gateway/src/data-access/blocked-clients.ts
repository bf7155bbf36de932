import type { BlockedClients } from '../domain/ports';

/** Clients remembered at most; past it the memory starts over (Redis still counts their failures). */
const MAX_REMEMBERED = 10_000;

/** Each blocked client with the window it is blocked in, in this process's memory. */
export function blockedClients(): BlockedClients {
  const blockedInWindow = new Map<string, number>();
  return {
    block(client, windowId) {
      if (blockedInWindow.size > MAX_REMEMBERED) blockedInWindow.clear();
      blockedInWindow.set(client, windowId);
    },
    isBlocked: (client, windowId) => blockedInWindow.get(client) === windowId,
  };
}
