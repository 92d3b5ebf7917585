/**
 * `naruto upgrade [--dry-run]`: brings `.github/workflows/naruto.yml` to this naruto's
 * template, keeping what is inside its `yours` blocks, and says what changed.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { MarkedTemplateError, unifiedDiff, upgradeWorkflow, WORKFLOW_PATH } from "../setup/index.ts";
import { EXIT, UsageError } from "./errors.ts";
import type { CliIO } from "./io.ts";
import { narutoTemplate, readIfThere, setupContext } from "./setup-context.ts";

export async function upgradeCommand(io: CliIO, o: { dryRun: boolean }): Promise<number> {
  const context = await setupContext(io, undefined);
  const path = join(context.root, WORKFLOW_PATH);
  const current = await readIfThere(path);
  if (current === null) throw new UsageError(`${WORKFLOW_PATH} is missing: \`naruto init\` writes it`);
  const { version, template } = await narutoTemplate();
  let result;
  try {
    result = upgradeWorkflow({ current, template, version });
  } catch (error) {
    if (error instanceof MarkedTemplateError)
      throw new UsageError(`${error.message}: put the marker line back (or see \`naruto init --dry-run --force\` for the whole file as init writes it)`);
    throw error;
  }
  if (result.kind === "unmarked") {
    throw new UsageError(
      `${WORKFLOW_PATH} has no naruto-template line and no "# >>> naruto yours:" blocks (copied by hand before naruto init), so what is yours in it cannot be told apart: \`naruto init --dry-run --force\` shows the file init would write instead, --force writes it; then move your changes into its blocks`,
    );
  }
  const diff = unifiedDiff({ before: current, after: result.text, path: WORKFLOW_PATH });
  if (diff === "") {
    io.stdout(`${WORKFLOW_PATH} is already naruto ${version}'s template: nothing to do\n`);
    return EXIT.ok;
  }
  const lines = [
    `${o.dryRun ? "would bring" : "brought"} ${WORKFLOW_PATH} from ${result.from === null ? "a template with no version" : `naruto ${result.from}'s template`} to naruto ${version}'s`,
    ...(result.kept.length > 0 ? [`  kept as you left them: ${result.kept.join(", ")}`] : []),
    ...(result.added.length > 0 ? [`  new blocks: ${result.added.join(", ")}`] : []),
    ...result.dropped.map((d) => `  ${d.name} is no longer in the template; what it held:\n${d.body.replace(/^/gm, "    | ")}`),
  ];
  io.stdout(`${diff}${lines.join("\n")}\n`);
  if (o.dryRun) return EXIT.ok;
  await writeFile(path, result.text);
  io.stdout(`Commit it and push it to ${context.defaultBranch ?? "the default branch"}; \`naruto doctor\` then checks it against GitHub.\n`);
  return EXIT.ok;
}
