/**
 * Agent output kept within a size bound: the first half and the last half of the budget, with a
 * marker where the middle was cut. The start shows what the agent set out to do, the end how it
 * finished; a chatty agent cannot fill the runner's memory.
 *
 * A word the cut went through is cut with the middle when it is long enough to be part of a
 * secret (src/redact/: a secret cut in two is recognised by neither half, so neither half stays).
 */
import { MIN_SECRET_LENGTH } from "../redact/index.ts";

export interface OutputBuffer {
  push(chunk: Buffer): void;
  /** Everything seen, or its head and tail around a `[naruto: … cut]` marker. */
  text(): string;
  /** Bytes seen in total. */
  readonly bytes: number;
  readonly truncated: boolean;
}

export function createOutputBuffer(limitBytes: number): OutputBuffer {
  const headLimit = Math.floor(limitBytes / 2);
  const tailLimit = limitBytes - headLimit;
  const head: Buffer[] = [];
  let headBytes = 0;
  const tail: Buffer[] = [];
  let tailBytes = 0;
  let total = 0;

  return {
    push(chunk) {
      total += chunk.length;
      let rest = chunk;
      if (headBytes < headLimit) {
        const take = rest.subarray(0, headLimit - headBytes);
        head.push(take);
        headBytes += take.length;
        rest = rest.subarray(take.length);
      }
      if (rest.length === 0) return;
      tail.push(rest);
      tailBytes += rest.length;
      // Drop whole chunks, then trim the first, until the tail fits.
      while (tailBytes > tailLimit) {
        const first = tail[0]!;
        const excess = tailBytes - tailLimit;
        if (first.length <= excess) {
          tail.shift();
          tailBytes -= first.length;
        } else {
          tail[0] = first.subarray(excess);
          tailBytes -= excess;
        }
      }
    },
    text() {
      const cut = total - headBytes - tailBytes;
      // Decoded in one piece when nothing was cut: a character may straddle head and tail.
      if (cut === 0) return Buffer.concat([...head, ...tail]).toString("utf8");
      const before = Buffer.concat(head).toString("utf8");
      const after = Buffer.concat(tail).toString("utf8");
      const keepBefore = brokenWordEnd(before);
      const keepAfter = brokenWordStart(after);
      const dropped = cut + Buffer.byteLength(before.slice(keepBefore)) + Buffer.byteLength(after.slice(0, keepAfter));
      return `${before.slice(0, keepBefore)}\n[naruto: ${dropped} bytes of output cut]\n${after.slice(keepAfter)}`;
    },
    get bytes() {
      return total;
    },
    get truncated() {
      return total > headBytes + tailBytes;
    },
  };
}

const SPACE = /\s/;

/** Where the head ends: before its last word when that word is long enough to be part of a secret. */
function brokenWordEnd(text: string): number {
  let i = text.length;
  while (i > 0 && !SPACE.test(text[i - 1]!)) i--;
  return text.length - i >= MIN_SECRET_LENGTH ? i : text.length;
}

/** Where the tail starts: after its first word when that word is long enough to be part of a secret. */
function brokenWordStart(text: string): number {
  let i = 0;
  while (i < text.length && !SPACE.test(text[i]!)) i++;
  return i >= MIN_SECRET_LENGTH ? i : 0;
}
