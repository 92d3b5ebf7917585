/**
 * Cron expressions of `schedules:` (the five POSIX fields GitHub's `on.schedule` takes, in UTC):
 * minute, hour, day of month, month, day of week; each `*`, a number, a range `a-b`, a step
 * `*∕n` or `a-b/n`, or a list of those. As in POSIX cron, when both day fields are restricted a
 * day matches if either does. Pure: the sweep asks which firing is due, nothing here waits.
 */

export interface Cron {
  /** The expression as written. */
  readonly text: string;
  readonly minutes: ReadonlySet<number>;
  readonly hours: ReadonlySet<number>;
  readonly days: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  /** 0 = Sunday (7 is read as 0). */
  readonly weekdays: ReadonlySet<number>;
  readonly daysRestricted: boolean;
  readonly weekdaysRestricted: boolean;
}

const FIELDS = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12 },
  { name: "day of week", min: 0, max: 7 },
] as const;

export const CRON_HINT = 'five fields "minute hour day-of-month month day-of-week" in UTC, like "0 3 * * 1-5"';

/**
 * @example parseCron("*∕15 * * * *") → { ok: true, cron: { minutes: {0, 15, 30, 45}, … } }
 * @example parseCron("0 25 * * *") → { ok: false, message: "hour: 25 is outside 0-23" }
 */
export function parseCron(text: string): { ok: true; cron: Cron } | { ok: false; message: string } {
  const parts = text.trim().split(/\s+/);
  if (parts.length !== 5 || parts[0] === "") return { ok: false, message: `expected ${CRON_HINT}; got ${parts[0] === "" ? 0 : parts.length} field(s)` };
  const sets: Set<number>[] = [];
  for (const [i, field] of FIELDS.entries()) {
    const parsed = parseField(parts[i] ?? "", field);
    if (typeof parsed === "string") return { ok: false, message: `${field.name}: ${parsed}` };
    sets.push(parsed);
  }
  const [minutes, hours, days, months, weekdays] = sets as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  if (weekdays.delete(7)) weekdays.add(0);
  return {
    ok: true,
    cron: { text: text.trim(), minutes, hours, days, months, weekdays, daysRestricted: parts[2] !== "*", weekdaysRestricted: parts[4] !== "*" },
  };
}

function parseField(text: string, field: { min: number; max: number }): Set<number> | string {
  const values = new Set<number>();
  for (const part of text.split(",")) {
    const match = /^(\*|(\d{1,2})(?:-(\d{1,2}))?)(?:\/(\d{1,2}))?$/.exec(part);
    if (!match) return `${JSON.stringify(part)} is not a number, range (a-b), step (*/n, a-b/n) or *`;
    const star = match[1] === "*";
    const from = star ? field.min : Number(match[2]);
    const to = star ? field.max : match[3] !== undefined ? Number(match[3]) : match[4] !== undefined ? field.max : from;
    const step = match[4] !== undefined ? Number(match[4]) : 1;
    for (const n of [from, to]) if (n < field.min || n > field.max) return `${n} is outside ${field.min}-${field.max}`;
    if (from > to) return `the range ${from}-${to} runs backwards`;
    if (step < 1) return "a step must be at least 1";
    for (let n = from; n <= to; n += step) values.add(n);
  }
  return values;
}

/** Whether the cron fires in the minute of `at` (UTC). */
export function cronMatches(cron: Cron, at: Date): boolean {
  if (!cron.minutes.has(at.getUTCMinutes()) || !cron.hours.has(at.getUTCHours()) || !cron.months.has(at.getUTCMonth() + 1)) return false;
  const day = cron.days.has(at.getUTCDate());
  const weekday = cron.weekdays.has(at.getUTCDay());
  if (cron.daysRestricted && cron.weekdaysRestricted) return day || weekday;
  return day && weekday;
}

/**
 * The latest minute in `(now - windowMs, now]` at which the cron fired, or null. A sweep that
 * runs late (GitHub delays scheduled runs under load) still finds the firing it missed; firings
 * older than the window are let go rather than started in a burst.
 */
export function latestFiring(cron: Cron, now: Date, windowMs: number): Date | null {
  const minute = 60_000;
  const last = Math.floor(now.getTime() / minute) * minute;
  for (let t = last; t > now.getTime() - windowMs; t -= minute) {
    const at = new Date(t);
    if (cronMatches(cron, at)) return at;
  }
  return null;
}
