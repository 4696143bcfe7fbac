/**
 * A constructor option with a bad value. `owner` is what was being built, `option` the option's
 * name (a dotted path for nested options) and `value` what was given.
 */
export class InvalidOptionError extends RangeError {
  readonly owner: string;
  readonly option: string;
  readonly value: unknown;

  constructor(owner: string, option: string, value: unknown, requirement: string) {
    super(`${owner}: option ${option} ${requirement}, got ${describe(value)}`);
    this.name = "InvalidOptionError";
    this.owner = owner;
    this.option = option;
    this.value = value;
  }
}

function describe(value: unknown): string {
  if (typeof value === "function") return "a function";
  if (typeof value === "string") return JSON.stringify(value);
  return String(value);
}

/** Bounds for {@link checkNumber}. */
export interface NumberBounds {
  /** Smallest allowed value (inclusive). */
  min?: number;
  /** Values must be strictly greater than this. */
  above?: number;
  max?: number;
  integer?: boolean;
  /** Allow `Infinity` (when `max` allows it). @default false */
  infinite?: boolean;
}

/**
 * Returns `value` if it is a number within `bounds`; throws an {@link InvalidOptionError} that
 * states the bound otherwise. `NaN` is never valid.
 */
export function checkNumber(
  owner: string,
  option: string,
  value: number,
  bounds: NumberBounds,
): number {
  const fail = (requirement: string): never => {
    throw new InvalidOptionError(owner, option, value, requirement);
  };
  if (typeof value !== "number" || Number.isNaN(value)) fail("must be a number");
  if (!bounds.infinite && !Number.isFinite(value)) fail("must be finite");
  if (bounds.integer && Number.isFinite(value) && !Number.isInteger(value))
    fail("must be an integer");
  if (bounds.min !== undefined && value < bounds.min) fail(`must be >= ${bounds.min}`);
  if (bounds.above !== undefined && !(value > bounds.above)) fail(`must be > ${bounds.above}`);
  if (bounds.max !== undefined && value > bounds.max) fail(`must be <= ${bounds.max}`);
  return value;
}

/**
 * Returns `value` if it is undefined or a function; throws an {@link InvalidOptionError} naming
 * the option otherwise.
 */
export function checkFunction<F>(owner: string, option: string, value: F): F {
  if (value !== undefined && typeof value !== "function") {
    throw new InvalidOptionError(owner, option, value, "must be a function");
  }
  return value;
}
