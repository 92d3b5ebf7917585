/** Money as naruto writes it: in reports, and in the reason a cost cap stops a mission. */
/**
 * Dollars to the cent, and below a cent with two significant digits: a run that cost $0.006
 * must not read "$0.01", nor one of $0.0004 "$0.00" (as if it had been free).
 *
 * @example formatUsd(0.5) → "$0.50"; formatUsd(0.006) → "$0.006"; formatUsd(0.000412) → "$0.00041"; formatUsd(0) → "$0.00"
 */
export function formatUsd(usd: number): string {
  if (usd === 0 || usd >= 0.01) return `$${usd.toFixed(2)}`;
  // Two significant digits, written out (toPrecision would give "4.1e-7" for tiny amounts).
  const digits = Math.max(2, 1 - Math.floor(Math.log10(usd)));
  return `$${usd.toFixed(digits).replace(/0+$/, "")}`;
}
