import { describe, expect, it } from "vitest";
import { defaultPlanLimits } from "./limits.ts";
import { item, rawPlan } from "./test-utils.ts";
import type { PlanError, PlanLimits } from "./types.ts";
import { formatPlanError, validatePlan } from "./validate.ts";

function errorsOf(raw: unknown, limits: PlanLimits = defaultPlanLimits()): PlanError[] {
  const result = validatePlan(raw, limits);
  if (result.ok) throw new Error("expected the plan to be invalid");
  return result.errors;
}

describe("validatePlan accepts", () => {
  it("a plan and fills in the defaults", () => {
    const result = validatePlan(rawPlan(item("a", ["./src//a.ts", "SRC/A.ts", "docs/"]), item("b", ["x"], ["a"], { estimate: "90s", verify: "npm test" })));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [a, b] = result.plan.items;
    expect(result.plan).toMatchObject({ version: 1, title: "" });
    expect(a).toMatchObject({ id: "a", title: "a", prompt: "a", agent: "default", verify: null, estimate: 1, readonly: false, reads: [], after: [] });
    // Duplicates (also case variants) are removed silently, keeping the first spelling.
    expect(a?.writes.map((w) => w.path)).toEqual(["src/a.ts", "docs/"]);
    expect(b).toMatchObject({ estimate: 1.5, verify: "npm test", after: ["a"] });
  });

  it("the prompt defaulting to the title", () => {
    const result = validatePlan(rawPlan(item("a", ["x"], [], { title: "Do the thing" })));
    expect(result.ok && result.plan.items[0]?.prompt).toBe("Do the thing");
  });

  it("an explicit read-only item without writes", () => {
    const result = validatePlan(rawPlan(item("look", [], [], { readonly: true }), { id: "look2", readonly: true }));
    expect(result.ok && result.plan.items.map((i) => [i.readonly, i.writes.length])).toEqual([
      [true, 0],
      [true, 0],
    ]);
  });

  it.each([["."], ["/"], ["docs/"], [".githubx/"], ["CODEOWNERS.md"], [".environment"]])("a write of %j next to protected paths", (path) => {
    expect(validatePlan(rawPlan(item("a", [path]))).ok).toBe(true);
  });

  it("writes inside protected paths when the config allows it", () => {
    const limits = { ...defaultPlanLimits(), allowProtected: true };
    expect(validatePlan(rawPlan(item("a", [".github/workflows/ci.yml"])), limits).ok).toBe(true);
  });

  it("a plan without a version, read as version 1", () => {
    expect(validatePlan({ items: [item("a", ["x"])] }).ok).toBe(true);
  });
});

describe("validatePlan rejects", () => {
  it.each<[string, unknown, Partial<PlanError>]>([
    ["a plan that is not an object", "text", { item: null, field: "", message: "expected object" }],
    ["another version", { version: 2, items: [item("a", ["x"])] }, { field: "version", message: "this naruto reads version 1" }],
    ["items that are not a list", { version: 1, items: { a: 1 } }, { field: "items", message: "must be a list" }],
    ["a plan without items", { version: 1, items: [] }, { field: "items", message: "no items" }],
    ["an unknown plan field", { version: 1, item: [], items: [item("a", ["x"])] }, { field: "item", message: 'did you mean "items"?' }],
    ["an item that is not an object", { version: 1, items: [item("a", ["x"]), "b"] }, { index: 1, item: null, field: "", message: "expected object" }],
    ["a missing id", { version: 1, items: [{ writes: ["x"] }] }, { index: 0, field: "id", message: "id must be a string" }],
    ["a bad id", rawPlan(item("Users API", ["x"])), { item: "Users API", field: "id", message: "is not valid" }],
    ["an id too long", rawPlan(item("a".repeat(64), ["x"])), { field: "id", message: "1 to 63 characters" }],
    ["an id git cannot use", rawPlan(item("a..b", ["x"])), { field: "id", message: "git branch name" }],
    ["an id ending in .lock", rawPlan(item("x.lock", ["x"])), { field: "id", message: "git branch name" }],
    ["a duplicate id", rawPlan(item("a", ["x"]), item("a", ["y"])), { item: "a", index: 1, field: "id", message: 'duplicate id "a": items[0] has it too' }],
    [
      "an unknown item field",
      rawPlan(item("a", ["x"], [], { write: ["y"] })),
      { item: "a", field: "write", message: 'unknown field "write": did you mean "writes"?' },
    ],
    ["an unknown after id", rawPlan(item("a", ["x"]), item("c", ["y"], ["a", "zz"])), { item: "c", index: 1, field: "after[1]", message: 'unknown item "zz"' }],
    ["a self-dependency", rawPlan(item("a", ["x"], ["a"])), { item: "a", field: "after[0]", message: "cannot come after itself" }],
    ["after that is not a list", { version: 1, items: [{ id: "a", writes: ["x"], after: "b" }] }, { field: "after", message: "list of item ids" }],
    ["a missing writes", { version: 1, items: [{ id: "a" }] }, { field: "writes", message: 'or set "readonly: true"' }],
    ["empty writes", rawPlan(item("a", [])), { field: "writes", message: "the item writes nothing" }],
    ["empty writes with readonly: false", rawPlan(item("a", [], [], { readonly: false })), { field: "writes", message: "writes nothing" }],
    ["a read-only item with writes", rawPlan(item("a", ["x"], [], { readonly: true })), { field: "readonly", message: "cannot have writes" }],
    ["writes that are not a list", { version: 1, items: [{ id: "a", writes: "x" }] }, { field: "writes", message: "must be a list of paths" }],
    ["a path leaving the repository", rawPlan(item("a", ["x", ".."])), { field: "writes[1]", message: '".." leaves the repository' }],
    ["an absolute path", rawPlan(item("a", ["/etc/passwd"])), { field: "writes[0]", message: "absolute paths" }],
    ["a path with a control character", rawPlan(item("a", ["a\u0007b"])), { field: "writes[0]", message: "control character" }],
    ["an empty path", rawPlan(item("a", [""])), { field: "writes[0]", message: "empty" }],
    ["a bad read path", rawPlan(item("a", ["x"], [], { reads: ["../x"] })), { field: "reads[0]", message: "leaves the repository" }],
    [
      "a write inside .github/workflows/",
      rawPlan(item("a", [".github/workflows/ci.yml"])),
      { field: "writes[0]", message: 'inside the protected path ".github/"' },
    ],
    [
      "a write inside .github/actions/ (composite actions a workflow runs)",
      rawPlan(item("a", [".github/actions/deploy/action.yml"])),
      { field: "writes[0]", message: 'inside the protected path ".github/"' },
    ],
    ["a write of .github/ itself", rawPlan(item("a", [".github/"])), { field: "writes[0]", message: "protected" }],
    ["a write of CODEOWNERS", rawPlan(item("a", ["CODEOWNERS"])), { field: "writes[0]", message: "protected" }],
    ["a write of docs/CODEOWNERS", rawPlan(item("a", ["docs/CODEOWNERS"])), { field: "writes[0]", message: "protected" }],
    ["a write of Claude Code's settings", rawPlan(item("a", [".claude/settings.json"])), { field: "writes[0]", message: "protected" }],
    ["a write of .env", rawPlan(item("a", [".env"])), { field: "writes[0]", message: "protected" }],
    ["a write of .mcp.json", rawPlan(item("a", [".MCP.json"])), { field: "writes[0]", message: "protected" }],
    ["a write of .github/workflows/ itself", rawPlan(item("a", [".GitHub/Workflows"])), { field: "writes[0]", message: "protected" }],
    ["a write of .github/naruto.yml", rawPlan(item("a", [".github/naruto.yml"])), { field: "writes[0]", message: "protected" }],
    ["a bad estimate", rawPlan(item("a", ["x"], [], { estimate: "soon" })), { field: "estimate", message: 'estimate "soon" is not a duration' }],
    ["an estimate of the wrong type", rawPlan(item("a", ["x"], [], { estimate: true })), { field: "estimate", message: "must be a duration" }],
    ["an empty title", rawPlan(item("a", ["x"], [], { title: " " })), { field: "title", message: "title is empty" }],
    ["a prompt that is not a string", rawPlan(item("a", ["x"], [], { prompt: 5 })), { field: "prompt", message: "prompt must be a string" }],
    ["a prompt over the limit", rawPlan(item("a", ["x"], [], { prompt: "p".repeat(65_537) })), { field: "prompt", message: "longer than 65536 characters" }],
    ["readonly that is not a boolean", rawPlan(item("a", ["x"], [], { readonly: "yes" })), { field: "readonly", message: "true or false" }],
    ["an empty verify", rawPlan(item("a", ["x"], [], { verify: "" })), { field: "verify", message: "verify is empty" }],
  ])("%s", (_name, raw, expected) => {
    const errors = errorsOf(raw);
    expect(errors).toHaveLength(1);
    const [error] = errors;
    const { message, ...where } = expected;
    expect(error).toMatchObject(where);
    if (message !== undefined) expect(error?.message).toContain(message);
  });

  it("more items than max_items, as a plan-level error", () => {
    const raw = rawPlan(...Array.from({ length: 4 }, (_, i) => item(`i${i}`, [`f${i}`])));
    expect(errorsOf(raw, { ...defaultPlanLimits(), maxItems: 3 })).toEqual([
      { item: null, index: null, field: "items", message: expect.stringContaining("4 items, more than the limit of 3") },
    ]);
  });

  it("a prompt over a configured limit", () => {
    const errors = errorsOf(rawPlan(item("a", ["x"], [], { prompt: "12345" })), { ...defaultPlanLimits(), maxPromptChars: 4 });
    expect(errors[0]).toMatchObject({ field: "prompt", message: expect.stringContaining("longer than 4") });
  });

  it("cycles, naming each once, at the earliest item in it", () => {
    const raw = rawPlan(
      item("a", ["1"], ["c"]),
      item("b", ["2"], ["a"]),
      item("c", ["3"], ["x", "b"]),
      item("x", ["4"]),
      item("p", ["5"], ["q"]),
      item("q", ["6"], ["p", "a"]),
    );
    expect(errorsOf(raw)).toEqual([
      { item: "a", index: 0, field: "after[0]", message: expect.stringContaining("cycle: a → c → b → a") },
      { item: "p", index: 4, field: "after[0]", message: expect.stringContaining("cycle: p → q → p") },
    ]);
  });

  it("a component with many cycles once, by its shortest cycle through the earliest item", () => {
    const raw = rawPlan(item("a", ["1"], ["b", "c"]), item("b", ["2"], ["c"]), item("c", ["3"], ["a"]));
    const errors = errorsOf(raw);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toContain("cycle: a → c → a");
    expect(errors[0]?.field).toBe("after[1]");
  });

  it("EVERY error at once, in item order, plan-level first", () => {
    const raw = {
      version: 1,
      extra: true,
      items: [
        item("ok", ["src/"]),
        { id: "Bad", writes: ["..", ".github/workflows/x.yml"], estimate: "x", after: ["nope"], write: [] },
        item("ok", ["y"], ["Bad"]),
        item("self", ["z"], ["self"], { readonly: true }),
      ],
    };
    expect(errorsOf(raw).map(formatPlanError)).toEqual([
      'extra: unknown field "extra": the known fields are version, title, items',
      'items[1] (id "Bad").id: id "Bad" is not valid: use 1 to 63 characters from a-z, 0-9, ".", "_" and "-", starting with a letter or digit',
      'items[1] (id "Bad").writes[0]: ".." leaves the repository',
      'items[1] (id "Bad").writes[1]: ".github/workflows/x.yml" is inside the protected path ".github/": remove it from writes, or allow protected paths in the config',
      'items[1] (id "Bad").estimate: estimate "x" is not a duration: write a duration such as 10m, 1h30m or 90s, or a number of minutes',
      'items[1] (id "Bad").write: unknown field "write": did you mean "writes"?',
      'items[1] (id "Bad").after[0]: unknown item "nope"',
      'items[2] (id "ok").id: duplicate id "ok": items[0] has it too; give each item its own id',
      'items[3] (id "self").readonly: a read-only item cannot have writes: remove "readonly: true", or empty "writes"',
      'items[3] (id "self").after[0]: the item cannot come after itself: remove "self"',
    ]);
  });
});

describe("formatPlanError", () => {
  it.each<[PlanError, string]>([
    [
      { item: "orders-api", index: 3, field: "writes[1]", message: '".." leaves the repository' },
      'items[3] (id "orders-api").writes[1]: ".." leaves the repository',
    ],
    [{ item: null, index: 2, field: "id", message: "id must be a string" }, "items[2].id: id must be a string"],
    [{ item: "a", index: 0, field: "", message: "expected object" }, 'items[0] (id "a"): expected object'],
    [{ item: null, index: null, field: "items", message: "too many" }, "items: too many"],
    [{ item: null, index: null, field: "", message: "line 3, column 1: bad" }, "line 3, column 1: bad"],
  ])("%j", (error, text) => {
    expect(formatPlanError(error)).toBe(text);
  });
});
