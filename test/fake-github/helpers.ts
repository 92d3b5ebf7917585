/** Shared set-up for the fake GitHub's own tests: a started fake with acme/demo and two users. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gitText } from "../../src/git/run-git.ts";
import { startFakeGitHub, type FakeGitHub, type FakeGitHubOptions } from "../support/fake-github/index.ts";
import { testGit } from "../support/git-repo.ts";

export const DEMO_WORKFLOW = `name: naruto
on:
  workflow_dispatch:
    inputs:
      mission:
        required: true
      mode:
        type: choice
        options: [work, integrate]
        default: work
jobs:
  work:
    runs-on: ubuntu-latest
    steps:
      - run: echo work
`;

export interface Demo {
  readonly github: FakeGitHub;
  /** Token of `octo-maintainer` (write). */
  readonly maintainer: string;
  /** Token of `octo-outsider` (read). */
  readonly outsider: string;
  /** Token of `octo-stranger` (no access). */
  readonly stranger: string;
  readonly mainSha: string;
}

export async function startDemo(options: FakeGitHubOptions = {}): Promise<Demo> {
  const github = await startFakeGitHub(options);
  await github.createRepo({
    owner: "acme",
    name: "demo",
    files: { "README.md": "# demo\n", ".github/workflows/naruto.yml": DEMO_WORKFLOW, "src/a.ts": "export const a = 1;\n" },
    issues: [{ title: "First issue", body: "Please fix", user: "octo-maintainer" }],
  });
  const maintainer = github.addUser("octo-maintainer", { permission: "write" }).token;
  const outsider = github.addUser("octo-outsider", { permission: "read" }).token;
  const stranger = github.addUser("octo-stranger").token;
  const main = await api(github, maintainer)("GET", "/repos/acme/demo/git/ref/heads/main");
  return { github, maintainer, outsider, stranger, mainSha: (main.body as { object: { sha: string } }).object.sha };
}

export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Headers;
}

/** A tiny REST client over fetch: `call("POST", "/repos/…", body)`. */
export function api(github: FakeGitHub, token?: string, options: { base?: string } = {}) {
  return async (method: string, path: string, body?: unknown): Promise<ApiAnswer> => {
    const headers: Record<string, string> = { accept: "application/vnd.github+json" };
    if (token !== undefined) headers["authorization"] = `token ${token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(`${options.base ?? github.apiUrl}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text === "" ? undefined : (JSON.parse(text) as unknown), headers: response.headers };
  };
}

/** Reads a field path from an unknown JSON answer (tests only). */
export function field(value: unknown, ...path: (string | number)[]): unknown {
  let current = value;
  for (const key of path) {
    current = typeof current === "object" && current !== null ? (current as Record<string | number, unknown>)[key] : undefined;
  }
  return current;
}

/** A scratch directory and a git runner for client-side git (clone, push). */
export async function scratch(): Promise<{ dir: string; git: (cwd: string, ...args: string[]) => Promise<string>; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "fake-github-client-"));
  const runner = testGit();
  return {
    dir,
    git: (cwd, ...args) => gitText(runner, { args, cwd }),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
