/**
 * Sizes in config (`limits.max_file_size`): a number of bytes, or a number with a unit, like
 * `50MiB`, `500KB` or `1GiB`. KiB/MiB/GiB count in 1024s, KB/MB/GB in 1000s, as their names say.
 */

// GitHub refuses files over 100 MiB; a limit above 2 GiB would be a typo, not a plan.
export const MAX_SIZE_BYTES = 2 * 1024 ** 3;

export const SIZE_PATTERN = /^(\d+)\s?(B|KB|KiB|MB|MiB|GB|GiB)?$/;

export const SIZE_HINT = "a size like 50MiB, 500KB or a number of bytes (units B, KB, KiB, MB, MiB, GB, GiB; at most 2GiB)";

const UNIT_BYTES: Readonly<Record<string, number>> = { B: 1, KB: 1e3, KiB: 1024, MB: 1e6, MiB: 1024 ** 2, GB: 1e9, GiB: 1024 ** 3 };

export type SizeResult = { ok: true; bytes: number } | { ok: false; message: string };

/**
 * Parses a size into bytes.
 *
 * @example parseSize("50MiB") → { ok: true, bytes: 52_428_800 }
 * @example parseSize(1000) → { ok: true, bytes: 1000 }
 * @example parseSize("50 megs") → { ok: false, message: "expected a size like 50MiB, …" }
 */
export function parseSize(value: string | number, maxBytes = MAX_SIZE_BYTES): SizeResult {
  const match = typeof value === "number" ? (Number.isSafeInteger(value) && value >= 0 ? [String(value), String(value)] : null) : SIZE_PATTERN.exec(value);
  if (match === null) return { ok: false, message: `expected ${SIZE_HINT}, got ${JSON.stringify(value)}` };
  const bytes = Number(match[1]) * (UNIT_BYTES[match[2] ?? "B"] ?? 1);
  if (bytes <= 0) return { ok: false, message: "a size must be larger than 0 bytes" };
  if (bytes > maxBytes) return { ok: false, message: `${value} is too large: at most ${formatSize(maxBytes)}` };
  return { ok: true, bytes };
}

/** The largest memory an agent may be given: far beyond any machine naruto runs on, so a typo is caught. */
export const MAX_MEMORY_BYTES = 1024 ** 4;

/** A size for people: the largest binary unit that divides it, e.g. 52_428_800 → "50MiB". */
export function formatSize(bytes: number): string {
  for (const unit of ["GiB", "MiB", "KiB"] as const) {
    const size = UNIT_BYTES[unit]!;
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return `${bytes}B`;
}
