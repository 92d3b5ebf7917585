import { describe, expect, it } from "vitest";
import { ATTR_MAX_LINE_LENGTH, gitattributesProblem, gitmodulesProblems, parseConfigList } from "./content.ts";

const sub = (name: string, key: string, value: string | null) => ({ key: `submodule.${name}.${key}`, value });

describe("parseConfigList", () => {
  it("reads key\\nvalue and bare keys, with dots in a subsection", () => {
    expect(parseConfigList("submodule.a.b.url\nhttps://x\0submodule.a.b.active\0")).toEqual([sub("a.b", "url", "https://x"), sub("a.b", "active", null)]);
  });
});

describe("gitmodulesProblems", () => {
  it.each([
    ["an https url", sub("deno", "url", "https://github.com/denoland/deno.git")],
    ["an ssh url", sub("deno", "url", "git@github.com:denoland/deno.git")],
    ["a relative url", sub("deno", "url", "../deno.git")],
    ["a path", sub("deno", "path", "vendor/deno")],
    ["an update mode", sub("deno", "update", "rebase")],
    ["another section", { key: "core.hooksPath", value: "/tmp" }],
  ])("accepts %s", (_name, entry) => {
    expect(gitmodulesProblems([entry])).toEqual([]);
  });

  it.each([
    ["a url that is an option", sub("x", "url", "--upload-pack=touch /tmp/pwned"), /url .* is one git refuses/],
    ["a path that is an option", sub("x", "path", "-x"), /path "-x" looks like a command-line option/],
    ["an update command", sub("x", "update", "!rm -rf ~"), /runs a command/],
    ["an empty name", sub("", "path", "x"), /a name git refuses/],
    ["a name that climbs", sub("a/../../b", "path", "x"), /a name git refuses/],
    ["a name that climbs with \\", sub("..\\hooks", "path", "x"), /a name git refuses/],
    ["a relative url into the host", sub("x", "url", "../../../:evil"), /url/],
    ["a relative url with an encoded newline", sub("x", "url", "./x%0a"), /url/],
    ["an http url without a host", sub("x", "url", "http:///x"), /url/],
    ["an http url with an encoded newline", sub("x", "url", "https://a%0ab@example.com/x"), /url/],
  ])("refuses %s", (_name, entry, problem) => {
    expect(gitmodulesProblems([entry])).toEqual([expect.stringMatching(problem)]);
  });
});

describe("gitattributesProblem", () => {
  it("accepts lines git reads, refuses a line git ignores", () => {
    expect(gitattributesProblem(Buffer.from("*.png binary\n*.ts diff\n"))).toBeNull();
    expect(gitattributesProblem(Buffer.from(`a\n${"x".repeat(ATTR_MAX_LINE_LENGTH)}\n`))).toBeNull();
    expect(gitattributesProblem(Buffer.from(`a\n${"x".repeat(ATTR_MAX_LINE_LENGTH + 1)}`))).toBe(`line 2 is longer than ${ATTR_MAX_LINE_LENGTH} bytes`);
  });
});
