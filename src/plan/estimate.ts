/**
 * Item estimates (README, "The plan format"): a duration hint for scheduling, in units of one minute.
 * `10m` = 10, `1h` = 60, `90s` = 1.5, `1h30m` = 90, and a bare number is a number of units.
 */

export type EstimateResult = { ok: true; value: number } | { ok: false; message: string };

/** The estimate of an item that does not give one. */
export const DEFAULT_ESTIMATE = 1;

/** About ten weeks: anything longer is a typo, and sums of huge numbers stop being exact. */
export const MAX_ESTIMATE = 100_000;

const NUMBER = String.raw`(\d+(?:\.\d+)?|\.\d+)`;
const BARE = new RegExp(`^${NUMBER}$`);
const DURATION = new RegExp(String.raw`^(?:${NUMBER}\s*h)?\s*(?:${NUMBER}\s*m)?\s*(?:${NUMBER}\s*s)?$`, "i");
const HINT = "write a duration such as 10m, 1h30m or 90s, or a number of minutes";

/**
 * Parses an estimate as written in a plan.
 *
 * @example parseEstimate("1h30m") → { ok: true, value: 90 }
 * @example parseEstimate("soon") → { ok: false, message: 'estimate "soon" is not a duration: …' }
 */
export function parseEstimate(input: string | number): EstimateResult {
  if (typeof input === "number") return checkRange(input, String(input));
  const text = input.trim();
  const bare = BARE.exec(text);
  if (bare) return checkRange(Number(bare[1]), input);
  const parts = DURATION.exec(text);
  if (!parts || text === "") return { ok: false, message: `estimate ${JSON.stringify(input)} is not a duration: ${HINT}` };
  const [hours, minutes, seconds] = [parts[1], parts[2], parts[3]].map((p) => (p === undefined ? 0 : Number(p)));
  return checkRange((hours ?? 0) * 60 + (minutes ?? 0) + (seconds ?? 0) / 60, input);
}

function checkRange(value: number, written: string): EstimateResult {
  if (!Number.isFinite(value) || value < 0) {
    return { ok: false, message: `estimate ${JSON.stringify(written)} must be a finite duration, not negative: ${HINT}` };
  }
  if (value > MAX_ESTIMATE) {
    return { ok: false, message: `estimate ${JSON.stringify(written)} is longer than ${MAX_ESTIMATE} minutes: split the item` };
  }
  return { ok: true, value };
}
