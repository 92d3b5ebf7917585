import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { formatConfigJsonSchema, JSON_SCHEMA_PATH } from "./json-schema.ts";

describe("schema/naruto.schema.json", () => {
  it("is current with the zod definition (regenerate: node --import tsx scripts/config-schema.ts)", async () => {
    const committed = await readFile(new URL(`../../${JSON_SCHEMA_PATH}`, import.meta.url), "utf8");
    expect(committed).toBe(formatConfigJsonSchema());
  });

  it("shows the defaults and allowed values an editor needs", () => {
    const schema: unknown = JSON.parse(formatConfigJsonSchema());
    expect(schema).toMatchObject({
      type: "object",
      additionalProperties: false,
      properties: {
        limits: {
          properties: {
            max_parallel: { default: 4, maximum: 256 },
            item_timeout: { default: "30m", type: "string" },
            min_permission: { default: "write", enum: ["admin", "maintain", "write", "triage", "read"] },
          },
        },
        protected: {
          default: [
            ".github/",
            "CODEOWNERS",
            "docs/CODEOWNERS",
            ".claude/",
            ".mcp.json",
            ".codex/",
            ".gemini/",
            ".aider.conf.yml",
            ".aider.model.settings.yml",
            ".aider.model.metadata.json",
            ".aiderignore",
            ".env",
          ],
        },
        agents: { additionalProperties: { properties: { preset: { enum: ["claude", "codex", "aider", "gemini"] } } } },
      },
    });
  });
});
