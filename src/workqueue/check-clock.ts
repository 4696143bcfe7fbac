import { type Clock, InvalidOptionError } from "../core/index.ts";

/**
 * Returns `clock` if it is undefined (the caller's default applies) or has `now` and `setTimer`;
 * throws an {@link InvalidOptionError} naming `option` otherwise, at construction rather than at
 * the first hand-out or delay.
 */
export function checkClock(
  owner: string,
  option: string,
  clock: Clock | undefined,
): Clock | undefined {
  if (clock === undefined) return undefined;
  const ok =
    typeof clock === "object" &&
    clock !== null &&
    typeof clock.now === "function" &&
    typeof clock.setTimer === "function";
  if (!ok) throw new InvalidOptionError(owner, option, clock, "must be a Clock (now and setTimer)");
  return clock;
}
