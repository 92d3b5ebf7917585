/**
 * Hidden markers: `<!-- naruto:KEY -->` at the start of a comment naruto owns, so the comment is
 * found again and updated in place (docs/action.md). GitHub renders nothing for an HTML comment.
 * Display only: a comment is never read back as state.
 */

// Keys are ids and colons; no ">" and no space, so nothing can end the HTML comment early.
const MARKER = /^<!-- naruto:[A-Za-z0-9._:/+-]+ -->$/;

/** True for a well-formed naruto marker such as `<!-- naruto:tracking:m-1 -->`. */
export function isMarker(marker: string): boolean {
  return MARKER.test(marker);
}

/** The marker for a key, e.g. `markerFor("tracking:m-1")`. */
export function markerFor(key: string): string {
  const marker = `<!-- naruto:${key} -->`;
  if (!isMarker(marker)) throw new TypeError(`marker key ${JSON.stringify(key)}: use letters, digits and . _ : / + - only`);
  return marker;
}

/** The body with the marker as its first line (added when the body does not start with it). */
export function withMarker(body: string, marker: string): string {
  return body.startsWith(marker) ? body : `${marker}\n${body}`;
}

/** True when a comment body starts with the marker (where naruto puts it), not merely quotes it. */
export function hasMarker(body: string | null | undefined, marker: string): boolean {
  return typeof body === "string" && body.trimStart().startsWith(marker);
}
