import { describe, expect, it } from "vitest";
import { createOutputBuffer } from "./output-buffer.ts";

function fill(limit: number, chunks: readonly string[]) {
  const buffer = createOutputBuffer(limit);
  for (const chunk of chunks) buffer.push(Buffer.from(chunk));
  return buffer;
}

describe("createOutputBuffer", () => {
  it.each<[string, number, string[], string]>([
    ["keeps everything under the limit", 10, ["abc", "def"], "abcdef"],
    ["keeps everything at the limit", 6, ["abc", "def"], "abcdef"],
    ["keeps head and tail around the cut", 6, ["abcdefgh", "ij"], "abc\n[naruto: 4 bytes of output cut]\nhij"],
    ["drops whole middle chunks", 4, ["ab", "cd", "ef", "gh", "ij"], "ab\n[naruto: 6 bytes of output cut]\nij"],
    ["trims inside a chunk", 4, ["abcdefghij"], "ab\n[naruto: 6 bytes of output cut]\nij"],
  ])("%s", (_, limit, chunks, text) => {
    const buffer = fill(limit, chunks);
    expect(buffer.text()).toBe(text);
    expect(buffer.bytes).toBe(chunks.join("").length);
    expect(buffer.truncated).toBe(text.includes("[naruto:"));
  });

  it("cuts a word the cut went through when it is long enough to be part of a secret", () => {
    // Neither half of a key cut in two is recognised by the redactor, so neither half is kept.
    const buffer = fill(40, ["start sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 end of it"]);
    expect(buffer.text()).toBe("start \n[naruto: 49 bytes of output cut]\n end of it");
  });

  it("decodes a character that straddles head and tail when nothing was cut", () => {
    const bytes = Buffer.from("aé");
    const buffer = createOutputBuffer(4);
    buffer.push(bytes.subarray(0, 2));
    buffer.push(bytes.subarray(2));
    expect(buffer.text()).toBe("aé");
  });

  it("stays bounded for a large stream", () => {
    const buffer = createOutputBuffer(1000);
    for (let i = 0; i < 10_000; i++) buffer.push(Buffer.from(`line ${i}\n`));
    const text = buffer.text();
    expect(text.startsWith("line 0\n")).toBe(true);
    expect(text.endsWith("line 9999\n")).toBe(true);
    expect(text.length).toBeLessThan(1100);
  });
});
