import { describe, expect, it } from "vitest";
import { formatField, suggestField, unknownFieldMessage } from "./schema-errors.ts";
import { ITEM_FIELDS, PLAN_FIELDS } from "./schema.ts";

describe("suggestField", () => {
  it.each([
    ["write", "writes"],
    ["Writes", "writes"],
    ["wirtes", "writes"],
    ["read", "reads"],
    ["depends_on", "after"],
    ["depends-on", "after"],
    ["needs", "after"],
    ["files", "writes"],
    ["name", "title"],
    ["description", "prompt"],
    ["estimat", "estimate"],
    ["read_only", "readonly"],
    ["zebra", null],
    ["x", null],
  ])("%j → %j", (key, expected) => {
    expect(suggestField(key, ITEM_FIELDS)).toBe(expected);
  });

  it("suggests among plan fields at the plan level", () => {
    expect(suggestField("item", PLAN_FIELDS)).toBe("items");
    expect(suggestField("writes", PLAN_FIELDS)).toBeNull();
  });

  it("lists the known fields when nothing is close", () => {
    expect(unknownFieldMessage("zebra", ["id", "writes"])).toBe('unknown field "zebra": the known fields are id, writes');
  });
});

describe("formatField", () => {
  it.each([
    [[], ""],
    [["writes", 1], "writes[1]"],
    [["after", 0], "after[0]"],
    [["a", "b", 2, "c"], "a.b[2].c"],
  ])("%j → %j", (path, expected) => {
    expect(formatField(path)).toBe(expected);
  });
});
