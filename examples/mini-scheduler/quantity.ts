/**
 * Kubernetes resource quantities (`500m`, `2Gi`, `1.5`, `1e3`), parsed exactly and read the
 * way kube-scheduler reads them: CPU in millicores (`MilliValue`), memory and counts in whole
 * units (`Value`), both rounded up — `0.1m` of CPU is 1 millicore, `1.5` bytes are 2.
 *
 * Grammar (apimachinery's `resource.Quantity`): an optional sign, a decimal number
 * (`1`, `1.5`, `.5`, `5.`), then at most one suffix: decimal SI `n u m "" k M G T P E`, binary
 * SI `Ki Mi Gi Ti Pi Ei`, or a decimal exponent `e3` / `E-3`.
 */

/** A quantity that does not parse, or is too large to read. */
export class QuantityError extends Error {
  readonly quantity: string;

  constructor(quantity: string, why: string) {
    super(`quantity ${JSON.stringify(quantity)} ${why}`);
    this.name = "QuantityError";
    this.quantity = quantity;
  }
}

const SYNTAX = /^([+-]?)(\d*)(?:\.(\d*))?(?:([numkMGTPE]|[KMGTPE]i)|[eE]([+-]?\d+))?$/;

/** Decimal SI suffix → power of ten. */
const DECIMAL: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

/** Binary SI suffix → power of two. */
const BINARY: Readonly<Record<string, number>> = {
  Ki: 10,
  Mi: 20,
  Gi: 30,
  Ti: 40,
  Pi: 50,
  Ei: 60,
};

/** Beyond 10^40 (and below 10^-40) a quantity is refused rather than computed. */
const MAX_EXPONENT = 40;

/**
 * The exact value of a quantity: `sign · mantissa · 10^exp10 · 2^exp2`.
 * @throws {QuantityError} if `text` is not a quantity.
 */
function parse(text: string): { negative: boolean; mantissa: bigint; exp10: number; exp2: number } {
  const m = SYNTAX.exec(text);
  const whole = m?.[2] ?? "";
  const fraction = m?.[3] ?? "";
  if (m === null || (whole === "" && fraction === "")) {
    throw new QuantityError(text, "is not a quantity (e.g. 500m, 2Gi, 1.5, 1e3)");
  }
  const suffix = m[4];
  let exp10 = -fraction.length;
  let exp2 = 0;
  if (suffix !== undefined) {
    if (suffix in BINARY) exp2 = BINARY[suffix]!;
    else exp10 += DECIMAL[suffix]!;
  } else if (m[5] !== undefined) {
    exp10 += Number(m[5]);
  }
  if (Math.abs(exp10) > MAX_EXPONENT + fraction.length) {
    throw new QuantityError(text, `is out of range (at most 10^${MAX_EXPONENT})`);
  }
  return { negative: m[1] === "-", mantissa: BigInt(`${whole}${fraction}` || "0"), exp10, exp2 };
}

/** The quantity times `10^scale`, rounded away from zero to a whole number. */
function scaled(quantity: string | number, scale: number): number {
  const text = typeof quantity === "number" ? numberText(quantity) : quantity;
  const { negative, mantissa, exp10, exp2 } = parse(text);
  const e = exp10 + scale;
  let n = mantissa * 2n ** BigInt(exp2);
  if (e >= 0) n *= 10n ** BigInt(e);
  else {
    const d = 10n ** BigInt(-e);
    n = (n + d - 1n) / d;
  }
  const out = Number(n);
  return negative ? -out : out;
}

/** A JSON number as quantity text (kube accepts numbers where quantities go). */
function numberText(n: number): string {
  if (!Number.isFinite(n)) throw new QuantityError(String(n), "is not a finite number");
  return String(n).replace(/^(-?)(\d*\.?\d*)e\+?/, "$1$2e");
}

/**
 * The quantity in thousandths, rounded up (CPU in millicores: `"500m"` → 500, `"2"` → 2000,
 * `"0.1m"` → 1).
 * @throws {QuantityError} if it is not a quantity.
 */
export function milliValue(quantity: string | number): number {
  return scaled(quantity, 3);
}

/**
 * The quantity in whole units, rounded up (memory in bytes: `"2Gi"` → 2147483648, `"1k"` →
 * 1000; counts: `"110"` → 110).
 * @throws {QuantityError} if it is not a quantity.
 */
export function value(quantity: string | number): number {
  return scaled(quantity, 0);
}
