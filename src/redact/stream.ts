/**
 * Redaction of streamed output (an agent's live output, for the job log, the terminal and the
 * output.log), where a secret may arrive in two chunks. Text is held back until a line ends
 * (`\n`, or a lone `\r` as a terminal and the Actions runner read it) and redacted a line at a
 * time; a private key block is held until its END line; lines that end in what may be the start
 * of a known value cut in pieces by line breaks (see split.ts) are held until what follows shows
 * whether it is. A line longer than `maxHold` (no secret is) is let go at its last whitespace,
 * or whole.
 */
import { StringDecoder } from "node:string_decoder";
import type { Redactor } from "./redactor.ts";

export interface RedactingStream {
  push(chunk: Buffer | string): void;
  /** Lets go of what is held (the last line without its line break). */
  end(): void;
}

const OPEN_KEY = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?![\s\S]*-----END [A-Z0-9 ]*PRIVATE KEY-----)/;

/** @param emit gets redacted text, whole lines (their breaks included) until `end`. */
export function createRedactingStream(redactor: Redactor, emit: (text: string) => void, options: { readonly maxHold?: number } = {}): RedactingStream {
  const maxHold = options.maxHold ?? 64 * 1024;
  const decoder = new StringDecoder("utf8");
  let held = "";
  const flush = (upTo: number) => {
    if (upTo <= 0) return;
    emit(redactor.redact(held.slice(0, upTo)));
    held = held.slice(upTo);
  };
  return {
    push(chunk) {
      held += typeof chunk === "string" ? chunk : decoder.write(chunk);
      let cut = lineEnd(held);
      // A `\r` at the very end may be the first half of `\r\n`: wait for the next chunk.
      if (cut === held.length && held.endsWith("\r")) cut = lineEnd(held.slice(0, -1));
      if (cut > 0 && OPEN_KEY.test(held.slice(0, cut))) cut = 0;
      // A value whose first pieces are on the lines so far waits for its last.
      cut = Math.min(cut, redactor.pending(held));
      if (cut === 0 && held.length > maxHold) {
        const space = Math.max(held.lastIndexOf(" "), held.lastIndexOf("\t"));
        cut = space > maxHold / 2 ? space + 1 : held.length;
      }
      flush(cut);
    },
    end() {
      held += decoder.end();
      flush(held.length);
    },
  };
}

/** The index after the last line break in `text` (0: none). */
function lineEnd(text: string): number {
  return Math.max(text.lastIndexOf("\n"), text.lastIndexOf("\r")) + 1;
}
