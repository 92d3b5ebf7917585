/**
 * `naruto doctor` against the fake GitHub: a repository set up as `naruto init` writes it passes
 * (exit 0), and each thing that stops a mission is found, named, and printed with its fix.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { configText, renderWorkflow, type WorkflowChoice } from "../../src/setup/index.ts";
import { startFakeGitHub, type FakeGitHub } from "../support/fake-github/index.ts";
import { fakeCli } from "../local/cli-io.ts";

const TEMPLATE = await readFile(new URL("../../templates/naruto.yml", import.meta.url), "utf8");
const VERSION = (JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
const workflow = (choice: WorkflowChoice) => renderWorkflow({ template: TEMPLATE, version: VERSION, choice });

let fake: FakeGitHub;
let admin: string;
let dir: string;
let keyFile: string;

beforeAll(async () => {
  fake = await startFakeGitHub();
  admin = fake.addUser("octo-admin", { permission: "admin" }).token;
  dir = await mkdtemp(join(tmpdir(), "naruto-doctor-"));
  keyFile = join(dir, "app.pem");
  await writeFile(keyFile, fake.app.privateKey);
});
afterAll(async () => {
  fake.assertNoViolations();
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

let repos = 0;

/** A repository of its own for each case: as init sets it up (claude), then `change` applied. */
async function repository(
  input: {
    owner?: string;
    app?: boolean;
    files?: Record<string, string | null>;
    secrets?: string[];
    canApprove?: boolean;
    variables?: Record<string, string>;
  } = {},
): Promise<string> {
  const owner = input.owner ?? "acme";
  const name = `demo-${++repos}`;
  const app = input.app ?? false;
  const files: Record<string, string | null> = {
    "README.md": "# demo\n",
    ".github/workflows/naruto.yml": workflow({ agent: "claude", app }),
    ".github/naruto.yml": configText({ agent: "claude", command: null }),
    ...input.files,
  };
  await fake.createRepo({ owner, name, files: Object.fromEntries(Object.entries(files).filter((e): e is [string, string] => e[1] !== null)) });
  fake.setActionsSettings({
    repo: `${owner}/${name}`,
    secrets: input.secrets ?? ["ANTHROPIC_API_KEY"],
    canApprovePullRequestReviews: input.canApprove ?? true,
    variables: input.variables ?? (app ? { NARUTO_BOT_LOGIN: `${fake.app.slug}[bot]` } : {}),
  });
  return `${owner}/${name}`;
}

async function doctor(repo: string, extra: string[] = []): Promise<{ code: number; out: string }> {
  const cli = fakeCli(dir);
  const code = await main(["doctor", "--repo", repo, "--token", admin, "--api-url", fake.apiUrl, ...extra], cli.io);
  return { code, out: cli.stdout() + cli.stderr() };
}

const appFlags = () => ["--app-id", String(fake.app.id), "--private-key", keyFile];

describe("naruto doctor", () => {
  it("passes a repository set up as naruto init writes it, without the App: exit 0", async () => {
    const { code, out } = await doctor(await repository());
    expect(out).toMatch(/^ok +workflow: \.github\/workflows\/naruto\.yml on main is a valid workflow/m);
    expect(out).toMatch(/^ok +template: the workflow is naruto \S+'s template/m);
    expect(out).toMatch(/^ok +secret ANTHROPIC_API_KEY: set/m);
    // Optional: without it the result gets no CI, which doctor says without failing the setup.
    expect(out).toMatch(/^ok +secret NARUTO_CI_TOKEN: not set: the queue pull request gets no CI/m);
    expect(out).toMatch(/^ok +pull requests:/m);
    expect(out).toMatch(/^ok +App: none/m);
    expect(out).not.toMatch(/^(FAIL|warn)/m);
    expect(out).toContain("Nothing stops a mission");
    expect(code).toBe(0);
  });

  it("passes a repository set up for the App, with the App's installation checked: exit 0", async () => {
    const { code, out } = await doctor(await repository({ app: true }), appFlags());
    expect(out).toMatch(/^ok +App: naruto is installed with the permissions and events of naruto's app\.yml/m);
    expect(out).toMatch(/^ok +variable NARUTO_BOT_LOGIN: naruto\[bot\]/m);
    expect(out).toMatch(/^ok +secret NARUTO_CI_TOKEN: not set: the App opens the queue pull request/m);
    expect(out).not.toMatch(/^(FAIL|warn)/m);
    expect(code).toBe(0);
  });

  it("finds the workflow missing from the default branch", async () => {
    const { code, out } = await doctor(await repository({ files: { ".github/workflows/naruto.yml": null } }));
    expect(out).toMatch(/^FAIL +workflow: \.github\/workflows\/naruto\.yml is not on main/m);
    expect(out).toMatch(/fix: run `naruto init` in a clone, commit \.github\/workflows\/naruto\.yml and push it to main/);
    expect(code).toBe(1);
  });

  it("finds a workflow GitHub would refuse, with GitHub's own parser", async () => {
    const broken = workflow({ agent: "claude", app: false }).replace(/^( {4}runs-on: .*\n)/m, "$1    runs-of: typo\n");
    const { code, out } = await doctor(await repository({ files: { ".github/workflows/naruto.yml": broken } }));
    expect(out).toMatch(/^FAIL +workflow: GitHub would refuse .*\n.*runs-of/m);
    expect(code).toBe(1);
  });

  it("finds a stale template and says to run naruto upgrade", async () => {
    const old = workflow({ agent: "claude", app: false })
      .replace(`# naruto-template ${VERSION} `, "# naruto-template 0.0.9 ")
      .replace('    - cron: "*/15 * * * *"', '    - cron: "*/30 * * * *"');
    const { code, out } = await doctor(await repository({ files: { ".github/workflows/naruto.yml": old } }));
    expect(out).toMatch(new RegExp(`^warn +template: the workflow is the template of naruto 0\\.0\\.9, not ${VERSION.replace(/\./g, "\\.")}'s`, "m"));
    expect(out).toMatch(/fix: run `naruto upgrade` in a clone/);
    expect(code).toBe(0);
  });

  it("finds a secret the workflow passes missing, and names where to add it", async () => {
    const repo = await repository({ secrets: [] });
    const { code, out } = await doctor(repo);
    expect(out).toMatch(/^FAIL +secret ANTHROPIC_API_KEY: not set, and the workflow passes it/m);
    expect(out).toContain(`fix: Add the repository secret ANTHROPIC_API_KEY: https://github.com/${repo}/settings/secrets/actions/new`);
    expect(out).toContain(`or: gh secret set ANTHROPIC_API_KEY --repo ${repo}`);
    expect(code).toBe(1);
  });

  it("takes an organisation's secret shared with the repository", async () => {
    const repo = await repository({ owner: "orgshared", secrets: [] });
    fake.setActionsSettings({ repo, orgSecrets: ["ANTHROPIC_API_KEY"] });
    const { code, out } = await doctor(repo);
    expect(out).toMatch(/^ok +secret ANTHROPIC_API_KEY: set \(the organisation's\)/m);
    expect(code).toBe(0);
  });

  it("finds the setting that lets Actions open the queue pull request off", async () => {
    const repo = await repository({ canApprove: false });
    const { code, out } = await doctor(repo);
    expect(out).toMatch(/^FAIL +pull requests: GitHub Actions may not create pull requests/m);
    expect(out).toContain(
      `fix: Tick "Allow GitHub Actions to create and approve pull requests" under Workflow permissions, and Save: https://github.com/${repo}/settings/actions`,
    );
    expect(code).toBe(1);
  });

  it("finds the App installed without a permission of app.yml", async () => {
    fake.addUser("octo-admin-beta", { permission: "admin" });
    const repo = await repository({ owner: "beta", app: true });
    const { checks: _dropped, ...fewer } = {
      metadata: "read",
      contents: "write",
      issues: "write",
      pull_requests: "write",
      actions: "write",
      checks: "write",
    } as const;
    fake.setInstallation("beta", fewer);
    const { code, out } = await doctor(repo, appFlags());
    expect(out).toMatch(/^FAIL +App: naruto lacks checks: write \(has none\)/m);
    expect(out).toMatch(/fix: add them in the App's settings \(Permissions & events: https:\/\/github\.com\/settings\/apps\/naruto\/permissions/);
    expect(code).toBe(1);
  });

  it("finds the App not installed on the repository's owner", async () => {
    const repo = await repository({ owner: "gamma", app: true });
    fake.setInstallation("gamma", null);
    const { code, out } = await doctor(repo, appFlags());
    expect(out).toMatch(/^FAIL +App: not installed on gamma\/demo-\d+/m);
    expect(out).toContain("fix: Install your naruto App on this repository");
    expect(code).toBe(1);
  });

  it("finds the variable that names the App's login missing", async () => {
    const repo = await repository({ app: true, variables: {} });
    const { code, out } = await doctor(repo, appFlags());
    expect(out).toMatch(/^FAIL +variable NARUTO_BOT_LOGIN: not set/m);
    expect(out).toContain(`fix: Add the repository variable NARUTO_BOT_LOGIN = naruto[bot]: https://github.com/${repo}/settings/variables/actions/new`);
    expect(code).toBe(1);
  });

  it("says what it could not check with a token that is not an admin's, and blocks on nothing it did not see", async () => {
    const repo = await repository();
    const writer = fake.addUser("octo-writer", { permission: "write" }).token;
    const cli = fakeCli(dir);
    const code = await main(["doctor", "--repo", repo, "--token", writer, "--api-url", fake.apiUrl], cli.io);
    expect(cli.stdout()).toMatch(/^warn +secrets: could not list the repository's secrets: GitHub answered 403/m);
    expect(cli.stdout()).toMatch(/^warn +pull requests: could not read the Actions setting/m);
    expect(code).toBe(0);
  });
});
