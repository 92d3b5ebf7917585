/**
 * Quotes one word for `sh`: for naruto's own command lines (a script path under a directory
 * with spaces). User text never goes through here into a command — it goes into prompt files.
 *
 * @example shellQuote("it's here") → `'it'\''s here'`
 */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
