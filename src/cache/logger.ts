/**
 * The logger informers write to: pino's call shape (`logger.warn(fields, message)`), so a pino
 * logger can be passed as is. The default writes warnings and errors to stderr.
 */

/** A structured logger; `fields` come first, as in pino. */
export interface Logger {
  error(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  debug(fields: Record<string, unknown>, message: string): void;
}

function write(level: string, fields: Record<string, unknown>, message: string): void {
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    extra[k] = v instanceof Error ? `${v.name}: ${v.message}` : v;
  }
  process.stderr.write(`kontroller ${level}: ${message} ${JSON.stringify(extra)}\n`);
}

/** Writes `warn` and `error` to stderr, one line each; drops `info` and `debug`. */
export const stderrLogger: Logger = {
  error: (fields, message) => write("error", fields, message),
  warn: (fields, message) => write("warn", fields, message),
  info: () => {},
  debug: () => {},
};

/** Drops everything. */
export const silentLogger: Logger = {
  error: () => {},
  warn: () => {},
  info: () => {},
  debug: () => {},
};
