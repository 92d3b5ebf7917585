/**
 * `naruto plan FILE [--json] [--strict] [--max-parallel N] [--max-items N]` (docs/architecture.md):
 * validates a plan, orders its conflicts, proves it, and estimates its schedule.
 */
import type { Config } from "../config/index.ts";
import { checkPlan, defaultPlanLimits, formatPlanError, verifyProof } from "../plan/index.ts";
import { readUserFile } from "./errors.ts";
import type { CliIO } from "./io.ts";
import { formatPlanHuman } from "../report/index.ts";
import { planReport, type PlanCommandOptions } from "../report/index.ts";

export { planReport, type PlanCommandOptions, type PlanJson, type PlanReport } from "../report/index.ts";

export async function planCommand(io: CliIO, file: string, options: PlanCommandOptions, config: Config | null): Promise<number> {
  const text = await readUserFile(io, file, "the plan");
  const report = planReport(text, options, config);
  if (options.json) {
    io.stdout(`${JSON.stringify(report.json, null, 2)}\n`);
  } else {
    if (report.check.plan) io.stdout(formatPlanHuman(report));
    const name = file === "-" ? "the plan on standard input" : file;
    if (report.check.errors.length > 0) io.stderr(`${name} is invalid:\n${report.check.errors.map((e) => `  ${formatPlanError(e)}\n`).join("")}`);
  }
  return report.json.ok ? 0 : 1;
}

/** `naruto verify-proof PLAN PROOF`: exit 0 when the proof checks against the plan, else 1. */
export async function verifyProofCommand(io: CliIO, planFile: string, proofFile: string): Promise<number> {
  const planText = await readUserFile(io, planFile, "the plan");
  const proofText = await readUserFile(io, proofFile, "the proof");
  // The proof is about overlap, not policy: check it whatever limits the plan was made under.
  const limits = { ...defaultPlanLimits(), maxItems: Number.MAX_SAFE_INTEGER, allowProtected: true };
  const check = checkPlan(planText, { limits });
  if (!check.plan) {
    io.stderr(`the plan is invalid:\n${check.errors.map((e) => `  ${formatPlanError(e)}`).join("\n")}\n`);
    return 1;
  }
  let proof: unknown;
  try {
    const parsed: unknown = JSON.parse(proofText);
    // `naruto plan --json` output holds the proof under "proof"; accept either form.
    proof = isObject(parsed) && "proof" in parsed && !("schema" in parsed) ? parsed.proof : parsed;
  } catch (e) {
    io.stderr(`the proof is not JSON: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  const verdict = verifyProof(check.plan, proof);
  if (verdict.ok) {
    io.stdout("proof ok: every pair of items that may run at the same time writes disjoint paths\n");
    return 0;
  }
  io.stderr(`proof rejected:\n${verdict.reasons.map((r) => `- ${r}`).join("\n")}\n`);
  return 1;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
