/** Small scans of JSON text that JSON.parse does not do for us. */

/** Character codes of JSON's structure. */
export const QUOTE = 34;
const BACKSLASH = 92;
export const OPEN_OBJECT = 123;
export const CLOSE_OBJECT = 125;
export const OPEN_ARRAY = 91;
export const CLOSE_ARRAY = 93;
export const COMMA = 44;
export const COLON = 58;

/** The index of the quote that closes the string opening at `start` (valid JSON assumed). */
export function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    // A string that never ends (text that is not JSON) runs to the end: a scan stops, never loops.
    if (end < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/**
 * True if objects and arrays in `text` (valid JSON) nest more than `limit` levels deep. The
 * server refuses such a body, as kube does (at its own depth), rather than meeting the stack's
 * limit later in a copy or an encode.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = stringEnd(text, i);
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return false;
}
