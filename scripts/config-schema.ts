/**
 * Writes `schema/naruto.schema.json` from the zod definition of `.github/naruto.yml`.
 * `--check` writes nothing and exits 1 when the committed file is not current (for CI).
 *
 *   node --import tsx scripts/config-schema.ts [--check]
 */
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { formatConfigJsonSchema, JSON_SCHEMA_PATH } from "../src/config/index.ts";

const target = fileURLToPath(new URL(`../${JSON_SCHEMA_PATH}`, import.meta.url));
const fresh = formatConfigJsonSchema();

if (process.argv.includes("--check")) {
  const committed = await readFile(target, "utf8").catch(() => null);
  if (committed !== fresh) {
    process.stderr.write(`${JSON_SCHEMA_PATH} is not current: run node --import tsx scripts/config-schema.ts\n`);
    process.exitCode = 1;
  }
} else {
  await writeFile(target, fresh);
  process.stdout.write(`wrote ${JSON_SCHEMA_PATH}\n`);
}
