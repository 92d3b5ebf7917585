import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { shellQuote } from "./shell-quote.ts";

describe("shellQuote", () => {
  it.each([["/usr/bin/node"], ["a b"], ["it's"], ["$HOME"], ["`x`"], ["a\nb"], [""], ["*"], ['"q"']])("sh reads %j back unchanged", (word) => {
    expect(execFileSync("sh", ["-c", `printf %s ${shellQuote(word)}`], { encoding: "utf8" })).toBe(word);
  });

  it("leaves plain paths readable", () => {
    expect(shellQuote("/opt/naruto/src/agent/demo-agent.mjs")).toBe("/opt/naruto/src/agent/demo-agent.mjs");
  });
});
