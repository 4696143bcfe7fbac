import type { Logger } from "../cache/index.ts";

/** A logger with `fields` added to every line: pino's `child` when there is one. */
export function bindLogger(logger: Logger, fields: Record<string, unknown>): Logger {
  const child = (logger as { child?: (f: Record<string, unknown>) => Logger }).child;
  if (typeof child === "function") return child.call(logger, fields);
  return {
    error: (f, m) => logger.error({ ...fields, ...f }, m),
    warn: (f, m) => logger.warn({ ...fields, ...f }, m),
    info: (f, m) => logger.info({ ...fields, ...f }, m),
    debug: (f, m) => logger.debug({ ...fields, ...f }, m),
  };
}
