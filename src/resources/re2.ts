import { RE2JS } from "re2js";

/**
 * Schema patterns are RE2, as kube compiles them (Go's regexp): `(?i)` and the other inline
 * flags are allowed, backreferences and lookaround are not, and matching takes linear time, so
 * no pattern of a CRD can make validation slow. re2js is a JavaScript port of RE2/J (no native
 * code): the same syntax, and parse errors worded as Go's (`error parsing regexp: …`).
 */

/** A compiled pattern: `test` finds a match anywhere in the string, as JSON Schema's pattern does. */
export interface Re2Pattern {
  test(s: string): boolean;
  /** `/pattern/`, as a RegExp prints itself: ajv tells its compiled patterns apart by this. */
  toString(): string;
}

/** Compiles an RE2 pattern; throws an Error saying what is wrong with it. */
export function compileRe2(pattern: string): Re2Pattern {
  const re = RE2JS.compile(pattern);
  return { test: (s) => re.matcher(s).find(), toString: () => `/${pattern}/` };
}

/**
 * ajv's `code.regExp` engine: every schema pattern compiled as RE2 (ajv's flags are ignored;
 * `code` would name the engine in standalone code, which kontroller does not generate).
 */
export const re2Engine = Object.assign((pattern: string, _flags: string) => compileRe2(pattern), {
  code: "re2js",
});
