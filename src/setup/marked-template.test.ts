import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { MarkedTemplateError, parseMarkedTemplate, renderMarkedTemplate, yoursBlocks } from "./marked-template.ts";

const TEMPLATE = await readFile(new URL("../../templates/naruto.yml", import.meta.url), "utf8");
const PACKAGE = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

const FILE = `# naruto-template 1.0.0 (naruto init --agent claude)
on:
  # >>> naruto without-app: comments
  issue_comment:
  # <<< naruto without-app: comments
  workflow_dispatch:
jobs:
  a:
    steps:
      # >>> naruto yours: a-install
      - run: echo install
      # <<< naruto yours: a-install
      - run: echo a
`;

describe("marked templates", () => {
  it("come back byte for byte when nothing is changed, the repository's template too", () => {
    for (const text of [FILE, TEMPLATE]) {
      const parsed = parseMarkedTemplate(text, "x.yml");
      expect(
        renderMarkedTemplate(parsed, { yours: {}, app: false, stamp: `${parsed.version ?? ""}${parsed.madeBy === null ? "" : ` (${parsed.madeBy})`}` }),
      ).toBe(text);
    }
  });

  it("read the stamp, the blocks, and what is left out with the App", () => {
    const parsed = parseMarkedTemplate(FILE, "x.yml");
    expect([parsed.version, parsed.madeBy]).toEqual(["1.0.0", "naruto init --agent claude"]);
    expect(yoursBlocks(parsed)).toEqual({ "a-install": "      - run: echo install\n" });
    const app = renderMarkedTemplate(parsed, { yours: { "a-install": "      - run: echo mine\n" }, app: true, stamp: "2.0.0" });
    expect(app).toBe(`# naruto-template 2.0.0
on:
  workflow_dispatch:
jobs:
  a:
    steps:
      # >>> naruto yours: a-install
      - run: echo mine
      # <<< naruto yours: a-install
      - run: echo a
`);
  });

  it("holds the blocks naruto init fills and the parts the App takes over", () => {
    const parsed = parseMarkedTemplate(TEMPLATE, "templates/naruto.yml");
    expect(Object.keys(yoursBlocks(parsed)).sort()).toEqual([
      "plan-env",
      "plan-install",
      "queue-env",
      "queue-install",
      "review-env",
      "review-install",
      "work-env",
      "work-install",
    ]);
    expect(parsed.segments.flatMap((s) => (s.kind === "without-app" ? [s.name] : []))).toEqual(["issue_comment", "command", "watch"]);
    // doctor compares a repository's workflow with this version's: the stamp must say which.
    expect(parsed.version).toBe(PACKAGE.version);
  });

  it.each([
    ["a block never closed", "# >>> naruto yours: a\nx\n", 1, '"yours: a" is never closed'],
    ["a close without an open", "x\n# <<< naruto yours: a\n", 2, '"yours: a" closes a block that was not opened'],
    ["a close of another block", "# >>> naruto yours: a\n# <<< naruto yours: b\n", 2, '"yours: b" closes "yours: a"'],
    ["a block inside another", "# >>> naruto yours: a\n# >>> naruto yours: b\n", 2, '"yours: b" opens inside "yours: a"'],
    ["a name twice", "# >>> naruto yours: a\n# <<< naruto yours: a\n# >>> naruto yours: a\n", 3, '"yours: a" is marked twice'],
    ["a marker misspelt", "# >>> naruto your: a\n", 1, "is not a marker naruto reads"],
  ])("refuse %s, naming the line", (_what, text, line, problem) => {
    const error = (() => {
      try {
        parseMarkedTemplate(text, "w.yml");
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(MarkedTemplateError);
    expect((error as MarkedTemplateError).line).toBe(line);
    expect((error as MarkedTemplateError).message).toContain(problem);
  });
});
