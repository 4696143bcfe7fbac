/*
 * The few pieces of Go's text formatting that kube's RBAC messages are made of, so that the
 * messages are the same byte for byte: `%q` of a string and of a []string, and the message of
 * apimachinery's aggregate error.
 */

const ESCAPES: Readonly<Record<string, string>> = {
  "\x07": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
  "\\": "\\\\",
  '"': '\\"',
};

/** Go's graphic characters (`unicode.IsPrint`): letters, marks, numbers, punctuation, symbols, ' '. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** `%q` of a string (Go's `strconv.Quote`). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const escaped = ESCAPES[ch];
    if (escaped !== undefined) {
      out += escaped;
      continue;
    }
    if (PRINTABLE.test(ch)) {
      out += ch;
      continue;
    }
    const code = ch.codePointAt(0) ?? 0xfffd;
    // A lone surrogate is what Go's JSON decoder reads as U+FFFD, a printable character.
    if (code >= 0xd800 && code <= 0xdfff) out += "\ufffd";
    else if (code < 0x80) out += `\\x${hex(code, 2)}`;
    else if (code < 0x10000) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return `${out}"`;
}

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, "0");
}

/** `%q` of a []string: `["a" "b"]`. */
export function goQuoteList(items: readonly string[]): string {
  return `[${items.map(goQuote).join(" ")}]`;
}

/**
 * The message of apimachinery's aggregate error (`utilerrors.NewAggregate`): one message as it
 * is; several deduplicated, joined with ", " in brackets (one left after deduplication: bare).
 */
export function aggregateMessage(messages: readonly string[]): string {
  if (messages.length === 1) return messages[0]!;
  const seen = [...new Set(messages)];
  return seen.length === 1 ? seen[0]! : `[${seen.join(", ")}]`;
}
