/**
 * Durations in config (`90s`, `10m`, `1h`, `1h30m`, `2d`). Units are written largest first, each
 * at most once, so a value reads one way only.
 */

// Timers in Node overflow above 2^31-1 ms (about 24.8 days) and then fire at once: cap well below.
export const MAX_DURATION_MS = 7 * 24 * 60 * 60 * 1000;

export const DURATION_PATTERN = /^(?=\d)(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

export const DURATION_HINT = "a duration like 90s, 10m, 1h or 1h30m (units d, h, m, s; at most 7d)";

const UNIT_MS = [86_400_000, 3_600_000, 60_000, 1_000] as const;

export type DurationResult = { ok: true; ms: number } | { ok: false; message: string };

/**
 * Parses a duration into milliseconds.
 *
 * @example parseDuration("1h30m") → { ok: true, ms: 5_400_000 }
 * @example parseDuration("30") → { ok: false, message: 'expected a duration like 90s, …' }
 * @example parseDuration("30d", Infinity) → { ok: true, ms: 2_592_000_000 } (an age, not a timer)
 */
export function parseDuration(text: string, max: number = MAX_DURATION_MS): DurationResult {
  const match = DURATION_PATTERN.exec(text);
  if (match === null) return { ok: false, message: `expected ${DURATION_HINT}, got ${JSON.stringify(text)}` };
  let ms = 0;
  UNIT_MS.forEach((unit, i) => {
    const digits = match[i + 1];
    if (digits !== undefined) ms += Number(digits) * unit;
  });
  if (ms === 0) return { ok: false, message: "a duration must be longer than 0s" };
  if (ms > max) return { ok: false, message: `${text} is too long: ${DURATION_HINT}` };
  return { ok: true, ms };
}

/** The inverse of `parseDuration` for whole seconds: 5_400_000 → "1h30m". */
export function formatDuration(ms: number): string {
  let rest = Math.round(ms / 1000) * 1000;
  if (rest <= 0) return "0s";
  let out = "";
  ["d", "h", "m", "s"].forEach((unit, i) => {
    const size = UNIT_MS[i]!;
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  });
  return out;
}
