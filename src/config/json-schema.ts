import { z } from "zod";
import { ConfigSchema } from "./schema.ts";

/** Where the generated schema is committed, relative to the repository root. */
export const JSON_SCHEMA_PATH = "schema/naruto.schema.json";

/**
 * The JSON Schema of `.github/naruto.yml`, generated from the zod definition the loader uses
 * (input side: what a person writes, with the defaults shown). Editors use it for completion;
 * cross-field rules (profile references, path normalization) are only in the loader.
 */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ConfigSchema, { io: "input", unrepresentable: "any" });
}

/** The committed file's exact text: stable key order, two-space indent, final newline. */
export function formatConfigJsonSchema(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}
