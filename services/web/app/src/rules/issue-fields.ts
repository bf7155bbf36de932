/**
 * An issue's fields as every page names them (the API's values and their words), so
 * the issues list, an issue, statistics and widgets speak alike.
 */

/** The API's priorities, lowest first. */
export const PRIORITIES = ['low', 'normal', 'high', 'critical'] as const;
export type Priority = (typeof PRIORITIES)[number];
export const PRIORITY_NAMES: Record<Priority, string> = { low: 'Low', normal: 'Normal', high: 'High', critical: 'Critical' };

export const isPriority = (value: unknown): value is Priority => (PRIORITIES as readonly unknown[]).includes(value);
