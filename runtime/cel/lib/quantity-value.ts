/**
 * Resource quantities with the Kubernetes grammar and exact arithmetic:
 *
 *   quantity ::= [+-] number suffix;  number ::= digits | digits.digits | digits. | .digits
 *   suffix   ::= Ki | Mi | Gi | Ti | Pi | Ei | n | u | m | "" | k | M | G | T | P | E | (e|E) [+-] digits
 *
 * A value is `units / 10^scale` with bigint units, so `1Gi`, `500m` and `1e3` are exact. As in the
 * real system, precision finer than 10^-9 is rounded up (away from zero) and magnitudes are capped
 * at 2^63-1.
 */

const BINARY: Record<string, bigint> = {
  Ki: 2n ** 10n,
  Mi: 2n ** 20n,
  Gi: 2n ** 30n,
  Ti: 2n ** 40n,
  Pi: 2n ** 50n,
  Ei: 2n ** 60n,
};
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

const MAX_SCALE = 9;
const MAX_MAGNITUDE = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

const pow10 = (n: number): bigint => 10n ** BigInt(n);

export class Quantity {
  private constructor(
    /** The value is units / 10^scale, scale in [0, 9]. */
    readonly units: bigint,
    readonly scale: number,
  ) {}

  /** Builds a normalized quantity: rounded up to nano precision, capped, trailing zeros dropped. */
  static of(units: bigint, scale: number): Quantity {
    let u = units;
    let s = scale;
    if (s < 0) {
      u *= pow10(-s);
      s = 0;
    }
    if (s > MAX_SCALE) {
      const div = pow10(s - MAX_SCALE);
      const negative = u < 0n;
      const abs = negative ? -u : u;
      const rounded = (abs + div - 1n) / div;
      u = negative ? -rounded : rounded;
      s = MAX_SCALE;
    }
    const cap = MAX_MAGNITUDE * pow10(s);
    if (u > cap) u = cap;
    if (u < -cap) u = -cap;
    while (s > 0 && u % 10n === 0n) {
      u /= 10n;
      s--;
    }
    return new Quantity(u, s);
  }

  static fromInt(n: bigint): Quantity {
    return Quantity.of(n, 0);
  }

  /** Parses the Kubernetes quantity grammar; undefined when `text` is not a quantity. */
  static parse(text: string): Quantity | undefined {
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/.exec(text);
    if (!m) return undefined;
    const [, sign = '', whole = '', frac = '', suffix = ''] = m;
    if (whole === '' && frac === '') return undefined;
    let units = BigInt(`${whole || '0'}${frac}`);
    let scale = frac.length;
    const binary = BINARY[suffix];
    const decimal = DECIMAL[suffix];
    if (binary !== undefined) {
      units *= binary;
    } else if (decimal !== undefined) {
      scale -= decimal;
    } else {
      const exp = /^[eE]([+-]?\d+)$/.exec(suffix)?.[1];
      if (exp === undefined) return undefined;
      const e = Number(exp);
      if (!Number.isSafeInteger(e) || Math.abs(e) > 1000) return undefined;
      scale -= e;
    }
    return Quantity.of(sign === '-' ? -units : units, scale);
  }

  private aligned(other: Quantity): [bigint, bigint, number] {
    const s = Math.max(this.scale, other.scale);
    return [this.units * pow10(s - this.scale), other.units * pow10(s - other.scale), s];
  }

  add(other: Quantity): Quantity {
    const [a, b, s] = this.aligned(other);
    return Quantity.of(a + b, s);
  }

  sub(other: Quantity): Quantity {
    const [a, b, s] = this.aligned(other);
    return Quantity.of(a - b, s);
  }

  compareTo(other: Quantity): number {
    const [a, b] = this.aligned(other);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  sign(): number {
    return this.units < 0n ? -1 : this.units > 0n ? 1 : 0;
  }

  /** The value as an int64 when it is a whole number in range. */
  asInt64(): bigint | undefined {
    if (this.scale !== 0) return undefined;
    return this.units <= MAX_MAGNITUDE && this.units >= INT64_MIN ? this.units : undefined;
  }

  asApproximateFloat(): number {
    return Number(this.units) / 10 ** this.scale;
  }

  /** Equality by value: `1` equals `1000m`. */
  celEquals(other: unknown): boolean {
    return other instanceof Quantity && this.compareTo(other) === 0;
  }

  toString(): string {
    if (this.scale === 0) return this.units.toString();
    const negative = this.units < 0n;
    const digits = (negative ? -this.units : this.units).toString().padStart(this.scale + 1, '0');
    const point = digits.length - this.scale;
    return `${negative ? '-' : ''}${digits.slice(0, point)}.${digits.slice(point)}`;
  }
}
