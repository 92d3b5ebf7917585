import { describe, expect, it } from "vitest";
import { outputTail } from "./output-tail.ts";

describe("outputTail", () => {
  it("keeps the last non-empty lines", () => {
    expect(outputTail("1\n2\n\n3\n4\n5\n6\n  \n", { lines: 3 })).toEqual(["4", "5", "6"]);
  });

  it("drops colours, cursor moves and control characters, and reads a lone \\r as a line end", () => {
    expect(outputTail("\x1b[31merror:\x1b[0m bad\x07\rspinner\x1b[2K\r\x1b]0;title\x07done\tok")).toEqual(["error: bad", "spinner", "done ok"]);
  });

  it("cuts a long line to the width", () => {
    expect(outputTail("x".repeat(300), { width: 10 })).toEqual(["xxxxxxxxx…"]);
  });

  it("has nothing to say for no output", () => {
    expect(outputTail("")).toEqual([]);
  });
});
