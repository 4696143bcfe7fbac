/**
 * Kubernetes' two timestamp formats. `Time` (creationTimestamp, deletionTimestamp, conditions'
 * lastTransitionTime) is RFC 3339 in UTC at second precision; `MicroTime` (a Lease's renewTime,
 * an Event's eventTime) has six fractional digits.
 */

/** `2026-01-02T03:04:05Z`: the second `ms` falls in (rounded down). */
export function toTime(ms: number): string {
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}

/** `2026-01-02T03:04:05.678000Z`. */
export function toMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** Milliseconds since the epoch of a `Time` or `MicroTime`, or `undefined` if it does not parse. */
export function parseTime(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
