/**
 * Money is kept in whole cents (integers), so that totals never pick up floating-point dust
 * (0.1 + 0.2 is not 0.3 in JavaScript).
 */

/** Formats cents as a price with two decimals: formatMoney(1250) → "12.50". */
export function formatMoney(cents) {
  if (!Number.isInteger(cents)) throw new TypeError(`cents must be a whole number, got ${cents}`);
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}
