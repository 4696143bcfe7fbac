import type { LabelSelector as LabelSelectorSpec } from "kubernetes-types/meta/v1.js";
import { InvalidOptionError } from "./options.ts";
import { SelectorError } from "./selector-error.ts";
import { checkLabelValue, checkQualifiedName } from "./validation.ts";

/** A label selector operator, as apimachinery's `selection.Operator`. */
export type LabelOperator = "=" | "==" | "!=" | "in" | "notin" | "exists" | "!" | "gt" | "lt";

/** One condition on one label key. All requirements of a selector must hold (AND). */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted; one value for `=`, `==`, `!=`, `gt`, `lt`; none for `exists` and `!`. */
  readonly values: readonly string[];
}

/**
 * A parsed label selector: `app=web,tier!=cache,env in (prod,staging),!legacy,replicas>2`.
 * The empty selector matches everything. Immutable.
 */
export class LabelSelector {
  readonly requirements: readonly LabelRequirement[];

  /** Usually made by {@link parseLabelSelector} or {@link labelSelectorFromSpec}. */
  constructor(options: { requirements: readonly LabelRequirement[] }) {
    const requirements = options?.requirements;
    if (!Array.isArray(requirements)) {
      throw new InvalidOptionError(
        "LabelSelector",
        "requirements",
        requirements,
        "must be an array",
      );
    }
    this.requirements = [...requirements].sort((a, b) =>
      a.key < b.key ? -1 : a.key > b.key ? 1 : 0,
    );
  }

  /** Selects everything. */
  static everything(): LabelSelector {
    return EVERYTHING;
  }

  /** True if this selector has no requirement. */
  get empty(): boolean {
    return this.requirements.length === 0;
  }

  /** True if `labels` satisfy every requirement. */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    for (const r of this.requirements) {
      if (!requirementMatches(r, labels ?? {})) return false;
    }
    return true;
  }

  /** The canonical text form (keys sorted, set values sorted), which parses back to an equal selector. */
  toString(): string {
    return this.requirements.map(formatRequirement).join(",");
  }
}

const EVERYTHING = new LabelSelector({ requirements: [] });

function requirementMatches(
  r: LabelRequirement,
  labels: Readonly<Record<string, string>>,
): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = has ? labels[r.key]! : undefined;
  switch (r.operator) {
    case "=":
    case "==":
    case "in":
      return has && r.values.includes(value!);
    case "!=":
    case "notin":
      return !has || !r.values.includes(value!);
    case "exists":
      return has;
    case "!":
      return !has;
    case "gt":
    case "lt": {
      if (!has || !INTEGER.test(value!)) return false;
      const have = Number(value);
      const want = Number(r.values[0]);
      return r.operator === "gt" ? have > want : have < want;
    }
  }
}

function formatRequirement(r: LabelRequirement): string {
  switch (r.operator) {
    case "exists":
      return r.key;
    case "!":
      return `!${r.key}`;
    case "in":
    case "notin":
      return `${r.key} ${r.operator} (${r.values.join(",")})`;
    case "gt":
      return `${r.key}>${r.values[0]}`;
    case "lt":
      return `${r.key}<${r.values[0]}`;
    default:
      return `${r.key}${r.operator}${r.values[0]}`;
  }
}

const INTEGER = /^-?\d+$/;

// ---- parsing ------------------------------------------------------------------------------

type TokenKind = "id" | "=" | "==" | "!=" | "!" | "(" | ")" | "," | ">" | "<" | "end";

interface Token {
  kind: TokenKind;
  text: string;
  pos: number;
}

/** Characters that end an identifier. */
const SPECIAL = new Set(["=", "!", "(", ")", ",", ">", "<"]);
const WHITESPACE = /\s/;

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (WHITESPACE.test(c)) {
      i++;
      continue;
    }
    const two = input.slice(i, i + 2);
    if (two === "==" || two === "!=") {
      tokens.push({ kind: two, text: two, pos: i });
      i += 2;
    } else if (SPECIAL.has(c)) {
      tokens.push({ kind: c as TokenKind, text: c, pos: i });
      i++;
    } else {
      const start = i;
      while (i < input.length && !SPECIAL.has(input[i]!) && !WHITESPACE.test(input[i]!)) i++;
      tokens.push({ kind: "id", text: input.slice(start, i), pos: start });
    }
  }
  tokens.push({ kind: "end", text: "", pos: input.length });
  return tokens;
}

/**
 * Parses a label selector string with the full Kubernetes syntax. Throws a {@link SelectorError}
 * pointing at the offending position for bad syntax, an invalid key or value, an empty set, or
 * a non-integer operand of `>`/`<`.
 */
export function parseLabelSelector(input: string): LabelSelector {
  const tokens = tokenize(input);
  let t = 0;
  const fail = (pos: number, problem: string): never => {
    throw new SelectorError("label", input, pos, problem);
  };
  const peek = () => tokens[t]!;
  const next = () => tokens[t++]!;
  const describe = (tok: Token) => (tok.kind === "end" ? "end of input" : `'${tok.text}'`);

  const key = (tok: Token): string => {
    if (tok.kind !== "id") fail(tok.pos, `found ${describe(tok)}, expected a label key`);
    const bad = checkQualifiedName(tok.text);
    if (bad !== undefined) fail(tok.pos, `invalid label key ${JSON.stringify(tok.text)}: ${bad}`);
    return tok.text;
  };
  const value = (tok: Token): string => {
    const bad = checkLabelValue(tok.text);
    if (bad !== undefined) fail(tok.pos, `invalid label value ${JSON.stringify(tok.text)}: ${bad}`);
    return tok.text;
  };

  const requirements: LabelRequirement[] = [];
  if (peek().kind === "end") return EVERYTHING;
  for (;;) {
    const first = next();
    if (first.kind === "!") {
      requirements.push({ key: key(next()), operator: "!", values: [] });
    } else {
      const k = key(first);
      const op = next();
      switch (op.kind) {
        case ",":
        case "end":
          t--;
          requirements.push({ key: k, operator: "exists", values: [] });
          break;
        case "=":
        case "==":
        case "!=": {
          // An empty value is allowed: `tier=` selects labels whose value is "".
          const v = peek();
          const val = v.kind === "id" ? value(next()) : "";
          if (v.kind !== "id" && v.kind !== "," && v.kind !== "end") {
            fail(v.pos, `found ${describe(v)}, expected a label value`);
          }
          requirements.push({ key: k, operator: op.kind, values: [val] });
          break;
        }
        case ">":
        case "<": {
          const v = next();
          if (v.kind !== "id" || !INTEGER.test(v.text)) {
            fail(v.pos, `found ${describe(v)}, expected an integer after '${op.text}'`);
          }
          requirements.push({ key: k, operator: op.kind === ">" ? "gt" : "lt", values: [v.text] });
          break;
        }
        case "id": {
          if (op.text !== "in" && op.text !== "notin") {
            fail(
              op.pos,
              `found '${op.text}', expected one of: '=', '==', '!=', 'in', 'notin', '>', '<', ','`,
            );
          }
          const open = next();
          if (open.kind !== "(") fail(open.pos, `found ${describe(open)}, expected '('`);
          const values = new Set<string>();
          for (;;) {
            const v = peek();
            if (v.kind === "id") values.add(value(next()));
            else if (v.kind === "," || v.kind === ")") values.add("");
            else fail(v.pos, `found ${describe(v)}, expected a label value, ',' or ')'`);
            const sep = next();
            if (sep.kind === ")") break;
            if (sep.kind !== ",") fail(sep.pos, `found ${describe(sep)}, expected ',' or ')'`);
          }
          // `in ()` parses above as one empty value; kube refuses an empty set.
          if (values.size === 1 && values.has("") && tokens[t - 2]!.kind === "(") {
            fail(tokens[t - 1]!.pos, `'${op.text}' needs at least one value`);
          }
          requirements.push({
            key: k,
            operator: op.text === "in" ? "in" : "notin",
            values: [...values].sort(),
          });
          break;
        }
        default:
          fail(
            op.pos,
            `found ${describe(op)}, expected one of: '=', '==', '!=', 'in', 'notin', '>', '<', ','`,
          );
      }
    }
    const sep = next();
    if (sep.kind === "end") break;
    if (sep.kind !== ",") fail(sep.pos, `found ${describe(sep)}, expected ',' or end of input`);
    if (peek().kind === "end")
      fail(peek().pos, "found end of input, expected a requirement after ','");
  }
  return new LabelSelector({ requirements });
}

/**
 * Builds a selector from the structured form objects carry (`spec.selector` of a Deployment):
 * `matchLabels` AND `matchExpressions`. Throws a `TypeError` naming the bad expression.
 * An absent or empty spec selects everything.
 */
export function labelSelectorFromSpec(spec: LabelSelectorSpec | undefined): LabelSelector {
  if (spec === undefined) return EVERYTHING;
  const requirements: LabelRequirement[] = [];
  for (const [k, v] of Object.entries(spec.matchLabels ?? {})) {
    const badKey = checkQualifiedName(k);
    if (badKey !== undefined)
      throw new TypeError(`matchLabels: invalid key ${JSON.stringify(k)}: ${badKey}`);
    const badValue = checkLabelValue(v);
    if (badValue !== undefined)
      throw new TypeError(`matchLabels[${k}]: invalid value ${JSON.stringify(v)}: ${badValue}`);
    requirements.push({ key: k, operator: "=", values: [v] });
  }
  (spec.matchExpressions ?? []).forEach((e, i) => {
    const where = `matchExpressions[${i}]`;
    const badKey = checkQualifiedName(e.key);
    if (badKey !== undefined)
      throw new TypeError(`${where}.key: invalid key ${JSON.stringify(e.key)}: ${badKey}`);
    const values = e.values ?? [];
    switch (e.operator) {
      case "In":
      case "NotIn":
        if (values.length === 0) {
          throw new TypeError(
            `${where}.values: must be specified when operator is "${e.operator}"`,
          );
        }
        for (const v of values) {
          const bad = checkLabelValue(v);
          if (bad !== undefined)
            throw new TypeError(`${where}.values: invalid value ${JSON.stringify(v)}: ${bad}`);
        }
        requirements.push({
          key: e.key,
          operator: e.operator === "In" ? "in" : "notin",
          values: [...new Set(values)].sort(),
        });
        break;
      case "Exists":
      case "DoesNotExist":
        if (values.length > 0) {
          throw new TypeError(
            `${where}.values: may not be specified when operator is "${e.operator}"`,
          );
        }
        requirements.push({
          key: e.key,
          operator: e.operator === "Exists" ? "exists" : "!",
          values: [],
        });
        break;
      default:
        throw new TypeError(
          `${where}.operator: unsupported value ${JSON.stringify(e.operator)}: supported values: "In", "NotIn", "Exists", "DoesNotExist"`,
        );
    }
  });
  return new LabelSelector({ requirements });
}
