import { InvalidOptionError } from "./options.ts";
import { SelectorError } from "./selector-error.ts";

/** A field selector operator. `=` and `==` mean the same. */
export type FieldOperator = "=" | "==" | "!=";

/** One condition on one field: `metadata.name=web`, `status.phase!=Running`. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  readonly value: string;
}

/**
 * A parsed field selector: terms joined by `,` (AND), each `field=value`, `field==value` or
 * `field!=value`; `\,`, `\=` and `\\` escape those characters in a value. A missing field
 * counts as the empty string, as in kube. The empty selector matches everything. Immutable.
 */
export class FieldSelector {
  readonly requirements: readonly FieldRequirement[];

  /** Usually made by {@link parseFieldSelector}. */
  constructor(options: { requirements: readonly FieldRequirement[] }) {
    const requirements = options?.requirements;
    if (!Array.isArray(requirements)) {
      throw new InvalidOptionError(
        "FieldSelector",
        "requirements",
        requirements,
        "must be an array",
      );
    }
    this.requirements = requirements;
  }

  static everything(): FieldSelector {
    return EVERYTHING;
  }

  get empty(): boolean {
    return this.requirements.length === 0;
  }

  /** True if `fields` (field path → value) satisfy every requirement. */
  matches(fields: Readonly<Record<string, string | undefined>>): boolean {
    for (const r of this.requirements) {
      const have = fields[r.field] ?? "";
      if ((r.operator === "!=") === (have === r.value)) return false;
    }
    return true;
  }

  /** The value this selector requires `field` to equal, if it has such a term. */
  requiredValue(field: string): string | undefined {
    return this.requirements.find((r) => r.field === field && r.operator !== "!=")?.value;
  }

  /** The text form, escaped, which parses back to an equal selector. */
  toString(): string {
    return this.requirements
      .map((r) => `${escapeTerm(r.field)}${r.operator}${escapeTerm(r.value)}`)
      .join(",");
  }
}

const EVERYTHING = new FieldSelector({ requirements: [] });

function escapeTerm(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * Parses a field selector. Throws a {@link SelectorError} at the offending position for a term
 * without an operator, an empty field name, or an invalid escape. Which fields a resource
 * supports is the server's business, not the parser's.
 */
export function parseFieldSelector(input: string): FieldSelector {
  if (input.trim() === "") return EVERYTHING;
  const requirements: FieldRequirement[] = [];
  let i = 0;
  while (i <= input.length) {
    const start = i;
    // Find the operator of this term: the first unescaped "!=", "==" or "=".
    let field = "";
    let operator: FieldOperator | undefined;
    let value = "";
    let cur = "";
    for (; i < input.length; i++) {
      const c = input[i]!;
      if (c === "\\") {
        const n = input[i + 1];
        if (n !== "\\" && n !== "," && n !== "=") {
          throw new SelectorError("field", input, i, `invalid escape sequence '\\${n ?? ""}'`);
        }
        cur += n;
        i++;
        continue;
      }
      if (c === ",") break;
      if (operator === undefined) {
        const op = input.startsWith("!=", i)
          ? "!="
          : input.startsWith("==", i)
            ? "=="
            : c === "="
              ? "="
              : undefined;
        if (op !== undefined) {
          field = cur.trim();
          if (field === "")
            throw new SelectorError(
              "field",
              input,
              start,
              "a term needs a field name before its operator",
            );
          operator = op;
          cur = "";
          i += op.length - 1;
          continue;
        }
      }
      cur += c;
    }
    if (operator === undefined) {
      throw new SelectorError(
        "field",
        input,
        start,
        `term ${JSON.stringify(input.slice(start, i))} has no operator; expected field=value, field==value or field!=value`,
      );
    }
    value = cur.trim();
    requirements.push({ field, operator, value });
    i++; // past the ","
  }
  return new FieldSelector({ requirements });
}
