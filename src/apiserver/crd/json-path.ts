/**
 * Evaluates the JSONPath subset CRD printer columns use: `.a.b`, `[0]`, `['a.b']` and filters
 * `[?(@.type=="Ready")]` (first match). A missing value is undefined.
 */
export function evaluateJsonPath(object: unknown, path: string): unknown {
  let expr = path.trim();
  if (expr.startsWith("{") && expr.endsWith("}")) expr = expr.slice(1, -1);
  if (expr.startsWith("$")) expr = expr.slice(1);
  let cur: unknown = object;
  let i = 0;
  while (i < expr.length && cur !== undefined) {
    const c = expr[i];
    if (c === ".") {
      let j = i + 1;
      while (j < expr.length && expr[j] !== "." && expr[j] !== "[") j++;
      const key = expr.slice(i + 1, j);
      cur = key === "" ? cur : prop(cur, key);
      i = j;
    } else if (c === "[") {
      const end = expr.indexOf("]", i);
      if (end < 0) return undefined;
      const inner = expr.slice(i + 1, end).trim();
      i = end + 1;
      if (/^-?\d+$/.test(inner)) {
        if (!Array.isArray(cur)) return undefined;
        const n = Number(inner);
        cur = cur[n < 0 ? cur.length + n : n];
      } else if (/^'.*'$|^".*"$/.test(inner)) {
        cur = prop(cur, inner.slice(1, -1));
      } else {
        const m = /^\?\(@\.([\w.-]+)\s*==\s*(?:"([^"]*)"|'([^']*)'|(\S+))\)$/.exec(inner);
        if (m === null || !Array.isArray(cur)) return undefined;
        const want = m[2] ?? m[3] ?? m[4];
        cur = cur.find((item) => String(evaluateJsonPath(item, `.${m[1]}`)) === want);
      }
    } else {
      return undefined;
    }
  }
  return cur;
}

function prop(v: unknown, key: string): unknown {
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)[key]
    : undefined;
}
