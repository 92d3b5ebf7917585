/**
 * Reads what doctor needs from GitHub (in this order, one request each, a few more for long
 * lists) and judges it (diagnose.ts). The repository itself must be readable: without it
 * nothing else can be checked.
 */
import { parse } from "yaml";
import { CONFIG_FILE_PATH, WORKFLOW_PATH, type GitHubRepository } from "../setup/index.ts";
import { diagnose, type AppManifest } from "./diagnose.ts";
import type { Finding } from "./finding.ts";
import type { DoctorGitHub } from "./doctor-github.ts";
import { workflowDiagnostics } from "./workflow-check.ts";

export interface DoctorInput {
  readonly github: DoctorGitHub;
  readonly repo: GitHubRepository;
  readonly naruto: { readonly version: string; readonly template: string; readonly appManifest: string };
}

export async function runDoctor(input: DoctorInput): Promise<Finding[]> {
  const repository = await input.github.repository();
  if (!repository.ok) {
    const why = repository.status === 404 ? "not found, or this token cannot see it" : `GitHub answered ${repository.status} (${repository.message})`;
    return [
      {
        check: "repository",
        severity: "fail",
        message: `${input.repo.owner}/${input.repo.name}: ${why}`,
        fix: "name it with --repo OWNER/NAME (default: the one origin names), and give a token that can read it: --token, GITHUB_TOKEN, or `gh auth login`",
      },
    ];
  }
  const branch = repository.value.defaultBranch;
  const workflow = await input.github.file(WORKFLOW_PATH, branch);
  const diagnostics = workflow.ok && workflow.value !== null ? await workflowDiagnostics(workflow.value, WORKFLOW_PATH) : [];
  const findings = diagnose({
    repo: input.repo,
    naruto: { version: input.naruto.version, template: input.naruto.template, app: appManifest(input.naruto.appManifest) },
    defaultBranch: branch,
    workflow,
    workflowDiagnostics: diagnostics,
    config: await input.github.file(CONFIG_FILE_PATH, branch),
    secrets: await input.github.secretNames(),
    variables: await input.github.variables(),
    workflowPermissions: await input.github.workflowPermissions(),
    installation: await input.github.installation(),
  });
  return [{ check: "repository", severity: "ok", message: `${input.repo.owner}/${input.repo.name}, default branch ${branch}`, fix: null }, ...findings];
}

/** The permissions and events naruto's app.yml asks for. */
export function appManifest(text: string): AppManifest {
  const manifest = parse(text) as { default_permissions?: Record<string, string>; default_events?: string[] };
  return { permissions: manifest.default_permissions ?? {}, events: manifest.default_events ?? [] };
}

/** The report: one line per finding (`ok`, `warn`, `FAIL`), each fix below its finding, and a last line. */
export function formatFindings(findings: readonly Finding[]): string {
  const lines: string[] = [];
  for (const f of findings) {
    const mark = f.severity === "fail" ? "FAIL" : f.severity;
    lines.push(`${mark.padEnd(5)} ${f.check}: ${f.message}`);
    if (f.fix !== null && f.severity !== "ok") lines.push(`      fix: ${f.fix.replace(/\n/g, "\n      ")}`);
  }
  const failed = findings.filter((f) => f.severity === "fail").length;
  const warned = findings.filter((f) => f.severity === "warn").length;
  lines.push(
    failed > 0
      ? `\n${failed} problem${failed === 1 ? "" : "s"} would stop a mission: fix ${failed === 1 ? "it" : "them"} and run naruto doctor again.`
      : `\nNothing stops a mission${warned > 0 ? ` (${warned} warning${warned === 1 ? "" : "s"} above)` : ""}: comment /naruto <task> on an issue.`,
  );
  return `${lines.join("\n")}\n`;
}
