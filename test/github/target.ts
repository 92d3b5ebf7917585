/**
 * Where the GitHub port suite runs: the fake GitHub on loopback (default), or real GitHub when
 * NARUTO_TEST_GITHUB_TOKEN and NARUTO_TEST_GITHUB_REPO are set (see port.test.ts for how).
 * The suite reads only these NARUTO_TEST_* variables; the adapter takes everything as options.
 */
import { randomBytes } from "node:crypto";
import { createGitHub, type CreateGitHubOptions, type GitHubPort, type RepoRef } from "../../src/github/index.ts";
import { startFakeGitHub, type FakeGitHub } from "../support/fake-github/index.ts";

export interface PortTarget {
  readonly kind: "fake" | "real";
  /** The port as naruto's App uses it (an installation token on the fake). */
  readonly github: GitHubPort;
  readonly repo: RepoRef;
  readonly issue: number;
  readonly defaultBranch: string;
  /** A workflow file with a `workflow_dispatch` trigger and a `mission` input; null: skip dispatch tests. */
  readonly workflow: string | null;
  /** True when the token may write check runs (an App installation token). */
  readonly checks: boolean;
  /** Branch namespace of this run, cleaned up on close: `refs/heads/naruto-test-<id>/`. */
  readonly scratch: string;
  readonly fake: FakeGitHub | null;
  /** Another client of the same repository (its own limits and retries). */
  makeGitHub(options?: Partial<CreateGitHubOptions>): GitHubPort;
  close(): Promise<void>;
}

export const FAKE_WORKFLOW = `name: naruto
on:
  workflow_dispatch:
    inputs:
      mission: { required: true, type: string }
      items: { required: false, type: string }
jobs:
  work:
    runs-on: ubuntu-latest
    steps:
      - run: echo "\${{ inputs.mission }}"
`;

// Fast settings for loopback: GitHub's own pacing (1 s between writes) would only slow tests.
const FAST = {
  retry: { retries: 3, baseDelayMs: 5 },
  throttle: { writeIntervalMs: 0, notificationIntervalMs: 0 },
  requestTimeoutMs: 10_000,
  sleep: () => Promise.resolve(),
} as const;

export function realGitHubEnv(
  env: NodeJS.ProcessEnv,
): { token: string; repo: RepoRef; issue: number; branch: string; workflow: string | null; checks: boolean } | null {
  const token = env["NARUTO_TEST_GITHUB_TOKEN"];
  const full = env["NARUTO_TEST_GITHUB_REPO"];
  if (!token || !full) return null;
  const [owner, repo] = full.split("/");
  if (!owner || !repo) throw new Error(`NARUTO_TEST_GITHUB_REPO=${full}: write it as owner/name`);
  return {
    token,
    repo: { owner, repo },
    issue: Number(env["NARUTO_TEST_GITHUB_ISSUE"] ?? "1"),
    branch: env["NARUTO_TEST_GITHUB_BRANCH"] ?? "main",
    workflow: env["NARUTO_TEST_GITHUB_WORKFLOW"] || null,
    checks: env["NARUTO_TEST_GITHUB_CHECKS"] === "1",
  };
}

export async function startTarget(env: NodeJS.ProcessEnv): Promise<PortTarget> {
  const scratch = `refs/heads/naruto-test-${randomBytes(4).toString("hex")}/`;
  const real = realGitHubEnv(env);
  if (real !== null) {
    const make = (options: Partial<CreateGitHubOptions> = {}) => createGitHub({ token: real.token, repo: real.repo, userAgent: "naruto-tests", ...options });
    const github = make();
    return {
      kind: "real",
      github,
      repo: real.repo,
      issue: real.issue,
      defaultBranch: real.branch,
      workflow: real.workflow,
      checks: real.checks,
      scratch,
      fake: null,
      makeGitHub: make,
      close: async () => {
        for (const { ref } of await github.listRefs(scratch)) await github.deleteRef(ref);
      },
    };
  }
  const fake = await startFakeGitHub();
  await fake.createRepo({
    owner: "acme",
    name: "demo",
    files: { "README.md": "# demo\n", "src/a.ts": "export const a = 1;\n", ".github/workflows/naruto.yml": FAKE_WORKFLOW },
    issues: [{ title: "Validate input" }],
  });
  fake.addUser("octo-maintainer", { permission: "write" });
  fake.addUser("octo-outsider", { permission: "read" });
  const { token } = fake.issueAppToken({ owner: "acme" });
  const repo = { owner: "acme", repo: "demo" };
  const make = (options: Partial<CreateGitHubOptions> = {}) => createGitHub({ token, repo, baseUrl: fake.url, userAgent: "naruto-tests", ...FAST, ...options });
  return {
    kind: "fake",
    github: make(),
    repo,
    issue: 1,
    defaultBranch: "main",
    workflow: "naruto.yml",
    checks: true,
    scratch,
    fake,
    makeGitHub: make,
    close: () => fake.close(),
  };
}
