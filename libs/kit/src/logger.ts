import pino from 'pino';

export type Logger = pino.Logger;

/** Structured JSON logs on stdout. Authorization and principal headers are never logged. */
export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: ['req.headers.authorization', 'req.headers["x-tracker-principal"]', 'token', '*.token'], remove: true },
  });
}
