/**
 * `naruto doctor`'s verdicts, decided purely from what was read (gather.ts): each finding is ok,
 * a warning (worth fixing, or not checkable with this token) or a failure (a mission would not
 * run, or would end without its pull request), with the exact fix. The command exits 0 only
 * when nothing fails.
 */
import { parse } from "yaml";
import { formatConfigErrors, loadConfig, PRESETS, type Config } from "../config/index.ts";
import {
  appInstallStep,
  botLoginStep,
  MarkedTemplateError,
  parseMarkedTemplate,
  pullRequestSettingStep,
  secretStep,
  upgradeWorkflow,
  WORKFLOW_PATH,
  CONFIG_FILE_PATH,
  webUrl,
  type GitHubRepository,
} from "../setup/index.ts";
import type { Installation, Read } from "./doctor-github.ts";
import { fail, type Finding, ok, warn } from "./finding.ts";
import { workflowFacts, type WorkflowFacts } from "./workflow-facts.ts";

export interface AppManifest {
  readonly permissions: Readonly<Record<string, string>>;
  readonly events: readonly string[];
}

export interface DoctorFacts {
  readonly repo: GitHubRepository;
  readonly naruto: { readonly version: string; readonly template: string; readonly app: AppManifest };
  readonly defaultBranch: string;
  readonly workflow: Read<string | null>;
  /** GitHub's parser's diagnostics of the workflow (empty when valid or absent). */
  readonly workflowDiagnostics: readonly string[];
  readonly config: Read<string | null>;
  readonly secrets: Read<{ readonly repo: readonly string[]; readonly org: readonly string[] }>;
  readonly variables: Read<Readonly<Record<string, string>>>;
  readonly workflowPermissions: Read<{ readonly canApprovePullRequestReviews: boolean }>;
  /** status 0: not asked (no App credentials). */
  readonly installation: Read<Installation | null>;
}

const unreadable = (r: { status: number; message: string }) => `GitHub answered ${r.status} (${r.message.split("\n")[0]})`;
const LEVELS = ["read", "write", "admin"];

export function diagnose(facts: DoctorFacts): Finding[] {
  const findings: Finding[] = [];
  const branch = facts.defaultBranch;
  if (!facts.workflow.ok) {
    findings.push(
      fail(
        "workflow",
        `could not read ${WORKFLOW_PATH}: ${unreadable(facts.workflow)}`,
        "give doctor a token that can read the repository's contents (--token, GITHUB_TOKEN, or `gh auth login`)",
      ),
    );
    return findings;
  }
  const text = facts.workflow.value;
  if (text === null) {
    findings.push(
      fail(
        "workflow",
        `${WORKFLOW_PATH} is not on ${branch}`,
        `run \`naruto init\` in a clone, commit ${WORKFLOW_PATH} and push it to ${branch} (GitHub runs workflows from the default branch only)`,
      ),
    );
    return findings;
  }
  if (facts.workflowDiagnostics.length > 0) {
    findings.push(
      fail(
        "workflow",
        `GitHub would refuse ${WORKFLOW_PATH} on ${branch}:\n${facts.workflowDiagnostics
          .slice(0, 10)
          .map((d) => `    ${d}`)
          .join("\n")}`,
        "correct those lines, or write the file again with `naruto init --force` (see `naruto init --dry-run --force` first)",
      ),
    );
  } else {
    findings.push(ok("workflow", `${WORKFLOW_PATH} on ${branch} is a valid workflow (GitHub's workflow parser)`));
  }
  findings.push(templateFinding(text, facts.naruto));
  const workflow = workflowFacts(text);
  const config = configFinding(facts.config);
  findings.push(config.finding);
  const app = !workflow.commandJob;
  findings.push(...secretFindings(facts, workflow, app));
  findings.push(...keyFindings(workflow, config.config, profileNames(facts.config)));
  findings.push(pullRequestFinding(facts));
  findings.push(...variableFindings(facts, workflow, app));
  findings.push(appFinding(facts, app));
  return findings;
}

function templateFinding(text: string, naruto: DoctorFacts["naruto"]): Finding {
  let upgraded;
  try {
    const marked = parseMarkedTemplate(text, WORKFLOW_PATH);
    upgraded = upgradeWorkflow({ current: text, template: naruto.template, version: naruto.version });
    if (upgraded.kind === "unmarked")
      return warn(
        "template",
        "the workflow has no naruto-template line: it was copied by hand, and `naruto upgrade` cannot tell your changes from the template",
        "see `naruto init --dry-run --force`, then `naruto init --force` and move your changes into its `yours` blocks",
      );
    if (upgraded.text === text) return ok("template", `the workflow is naruto ${naruto.version}'s template`);
    const from = marked.version ?? "no version";
    return warn(
      "template",
      `the workflow is ${from === naruto.version ? `naruto ${from}'s template, changed outside its \`yours\` blocks` : `the template of naruto ${from}, not ${naruto.version}'s`}`,
      "run `naruto upgrade` in a clone (it keeps your `yours` blocks and prints the diff), commit and push it",
    );
  } catch (error) {
    if (error instanceof MarkedTemplateError)
      return warn("template", `the workflow's naruto markers do not pair up: ${error.message}`, "put the marker line back, then `naruto upgrade`");
    throw error;
  }
}

function configFinding(config: DoctorFacts["config"]): { finding: Finding; config: Config | null } {
  if (!config.ok) return { finding: warn("config", `could not read ${CONFIG_FILE_PATH}: ${unreadable(config)}`, null), config: null };
  const loaded = loadConfig(config.value ?? "");
  if (!loaded.ok)
    return {
      finding: fail(
        "config",
        `${CONFIG_FILE_PATH} is invalid:\n${formatConfigErrors(loaded.errors).replace(/^/gm, "    ")}`,
        `correct those fields in ${CONFIG_FILE_PATH} and push it`,
      ),
      config: null,
    };
  return {
    finding: ok("config", config.value === null ? `no ${CONFIG_FILE_PATH}: every default (the claude preset)` : `${CONFIG_FILE_PATH} is valid`),
    config: loaded.config,
  };
}

/** The secret the template passes as `ci-token`: optional, it only decides whether the result gets CI. */
const CI_TOKEN = "NARUTO_CI_TOKEN";

/**
 * Whether the queue pull request gets the repository's CI (docs/action.md, "CI on the queue pull
 * request"): with the token, or with the App; without either it gets none, which is the
 * template's default and no fault of the setup, so it is said, not warned about.
 */
function ciTokenFinding(set: boolean, app: boolean): Finding {
  const check = `secret ${CI_TOKEN}`;
  if (set) return ok(check, "set: the queue is pushed and its pull request opened with it, so the repository's CI runs on the result");
  if (app) return ok(check, "not set: the App opens the queue pull request and starts the repository's CI on it");
  return ok(
    check,
    'not set: the queue pull request gets no CI (GitHub starts no workflow for what the workflow\'s GITHUB_TOKEN pushes or opens); for CI on the result, set it to a token that starts workflows, or install the App (docs/action.md, "CI on the queue pull request")',
  );
}

function secretFindings(facts: DoctorFacts, workflow: WorkflowFacts, app: boolean): Finding[] {
  if (workflow.secrets.length === 0) return [ok("secrets", "the workflow passes no secret")];
  if (!facts.secrets.ok) {
    return [
      warn(
        "secrets",
        `could not list the repository's secrets: ${unreadable(facts.secrets)}; the workflow passes ${workflow.secrets.map((s) => s.name).join(", ")}`,
        `check by hand at ${webUrl(facts.repo)}/settings/secrets/actions (listing secrets takes an admin of the repository)`,
      ),
    ];
  }
  const present = new Set([...facts.secrets.value.repo, ...facts.secrets.value.org].map((n) => n.toUpperCase()));
  return workflow.secrets.map((s) =>
    s.name.toUpperCase() === CI_TOKEN
      ? ciTokenFinding(present.has(CI_TOKEN), app)
      : present.has(s.name.toUpperCase())
        ? ok(
            `secret ${s.name}`,
            `set${facts.secrets.ok && !facts.secrets.value.repo.some((n) => n.toUpperCase() === s.name.toUpperCase()) ? " (the organisation's)" : ""}`,
          )
        : s.optional
          ? warn(`secret ${s.name}`, "not set; the workflow goes on without it", secretStep(facts.repo, s.name, null))
          : fail(`secret ${s.name}`, "not set, and the workflow passes it", secretStep(facts.repo, s.name, null)),
  );
}

/** Each profile the config runs gets a key its preset reads, from the agent steps of the workflow. */
function keyFindings(workflow: WorkflowFacts, config: Config | null, fileProfiles: readonly string[]): Finding[] {
  if (config === null) return [];
  const findings: Finding[] = [];
  const jobs = ["plan", "work", "review"].filter((job) => workflow.agentEnv[job] !== undefined);
  // The profiles a mission may run: the default, the planner's and the review's, and the file's own
  // (plan items name them); the presets listed by name are there whether used or not.
  const used = new Set(["default", config.planner.agent, ...(config.arbiter.agent === null ? [] : [config.arbiter.agent]), ...fileProfiles]);
  for (const [name, profile] of Object.entries(config.agents).filter(([n]) => used.has(n))) {
    const preset = profile.preset;
    const wanted = preset === null ? profile.env : PRESETS[preset].env;
    if (wanted.length === 0) continue;
    const missing = jobs.filter((job) => !wanted.some((v) => workflow.agentEnv[job]?.includes(v)));
    if (missing.length === 0) continue;
    const what = preset === null ? `profile ${name}'s env (${wanted.join(", ")})` : `a key of the ${preset} preset (${wanted[0]}, …)`;
    const fix = `pass it in the agent step's env (the ${missing.map((j) => `${j}-env`).join(", ")} block${missing.length === 1 ? "" : "s"}), e.g. ${wanted[0]}: \${{ secrets.${wanted[0]} }}`;
    findings.push(
      preset === null
        ? warn(`agent ${name}`, `no ${what} is passed by the ${missing.join(", ")} agent step`, fix)
        : fail(`agent ${name}`, `the ${missing.join(", ")} agent step passes no ${what}`, fix),
    );
  }
  return findings;
}

/** The profile names the config file itself defines. */
function profileNames(config: DoctorFacts["config"]): string[] {
  if (!config.ok || config.value === null) return [];
  try {
    const agents = (parse(config.value) as { agents?: unknown } | null)?.agents;
    return typeof agents === "object" && agents !== null ? Object.keys(agents) : [];
  } catch {
    return [];
  }
}

function pullRequestFinding(facts: DoctorFacts): Finding {
  const check = "pull requests";
  if (!facts.workflowPermissions.ok)
    return warn(
      check,
      `could not read the Actions setting "Allow GitHub Actions to create and approve pull requests": ${unreadable(facts.workflowPermissions)} (an admin's setting)`,
      pullRequestSettingStep(facts.repo),
    );
  if (facts.workflowPermissions.value.canApprovePullRequestReviews) return ok(check, "GitHub Actions may create pull requests (the queue pull request)");
  return fail(check, "GitHub Actions may not create pull requests: a mission would end without its queue pull request", pullRequestSettingStep(facts.repo));
}

function variableFindings(facts: DoctorFacts, workflow: WorkflowFacts, app: boolean): Finding[] {
  if (!facts.variables.ok)
    return [
      warn(
        "variables",
        `could not read the repository variables: ${unreadable(facts.variables)}`,
        `check by hand at ${webUrl(facts.repo)}/settings/variables/actions`,
      ),
    ];
  const vars = facts.variables.value;
  const findings: Finding[] = [];
  const slug = facts.installation.ok && facts.installation.value !== null ? facts.installation.value.appSlug : null;
  if (app && workflow.variables.includes("NARUTO_BOT_LOGIN")) {
    const login = vars["NARUTO_BOT_LOGIN"];
    if (login === undefined || login === "")
      findings.push(
        fail("variable NARUTO_BOT_LOGIN", "not set: the jobs would write a tracking comment of their own beside the App's", botLoginStep(facts.repo, slug)),
      );
    else if (slug !== null && login !== `${slug}[bot]`)
      findings.push(fail("variable NARUTO_BOT_LOGIN", `is ${login}, but the App installed is ${slug}[bot]`, botLoginStep(facts.repo, slug)));
    else findings.push(ok("variable NARUTO_BOT_LOGIN", login));
  }
  if (!app && vars["NARUTO_APP"] === "true") {
    findings.push(
      fail(
        "variable NARUTO_APP",
        "is true, so the workflow's command job skips every comment, but the workflow is the one without the App",
        `delete the variable at ${webUrl(facts.repo)}/settings/variables/actions, or set up for the App with \`naruto init --app --force\``,
      ),
    );
  }
  const others = workflow.variables.filter((v) => !(app && v === "NARUTO_BOT_LOGIN") && !(!app && v === "NARUTO_APP" && vars[v] === "true"));
  if (others.length > 0) findings.push(ok("variables", others.map((v) => `${v}=${vars[v] ?? "(unset)"}`).join(", ")));
  return findings;
}

function appFinding(facts: DoctorFacts, app: boolean): Finding {
  const check = "App";
  const installation = facts.installation;
  if (!app && (!installation.ok || installation.value === null)) return ok(check, "none: the workflow's command job takes the comments");
  if (!installation.ok) {
    if (installation.status === 0)
      return warn(
        check,
        "not checked: the workflow is the one for the App, and doctor was given no App credentials",
        "run doctor with --app-id ID --private-key FILE (the App's own), or --app-env FILE (its server's .env)",
      );
    return fail(
      check,
      `could not read the App's installation on ${facts.repo.owner}/${facts.repo.name}: ${unreadable(installation)}`,
      "check the App id and private key given to doctor",
    );
  }
  if (installation.value === null) return fail(check, `not installed on ${facts.repo.owner}/${facts.repo.name}`, appInstallStep(facts.repo, null));
  const has = installation.value;
  const missing = Object.entries(facts.naruto.app.permissions).filter(([name, level]) => LEVELS.indexOf(has.permissions[name] ?? "") < LEVELS.indexOf(level));
  const events = facts.naruto.app.events.filter((e) => !has.events.includes(e));
  if (missing.length === 0 && events.length === 0) return ok(check, `${has.appSlug} is installed with the permissions and events of naruto's app.yml`);
  const problems = [...missing.map(([name, level]) => `${name}: ${level} (has ${has.permissions[name] ?? "none"})`), ...events.map((e) => `the ${e} event`)];
  return fail(
    check,
    `${has.appSlug} lacks ${problems.join(", ")}`,
    `add them in the App's settings (Permissions & events: https://${facts.repo.host}/settings/apps/${has.appSlug}/permissions, as naruto's app.yml lists them), then accept them for this installation: ${has.settingsUrl}`,
  );
}
