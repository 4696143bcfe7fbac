/** The characters of a generated suffix (kube's: no vowels, no look-alike digits). */
const NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";
/** A generated name keeps at most this much of `generateName`, as kube does (63 - 5). */
const MAX_BASE_LENGTH = 58;
/** How many names a create with `generateName` tries before answering 409 AlreadyExists. */
export const GENERATE_NAME_ATTEMPTS = 8;

/**
 * A name from `generateName`: its first 58 characters and 5 random ones (kube's
 * `SimpleNameGenerator`). `random` returns a number in [0, 1); without one, the name is the
 * prefix itself (kube's no-op generator, for kinds named by value).
 */
export function generateName(base: string, random: (() => number) | undefined): string {
  if (random === undefined) return base;
  let suffix = "";
  for (let i = 0; i < 5; i++) suffix += NAME_CHARS[Math.floor(random() * NAME_CHARS.length)];
  return `${base.slice(0, MAX_BASE_LENGTH)}${suffix}`;
}
