/**
 * The world of an end-to-end scenario: the fake GitHub with `acme/demo` holding naruto's
 * workflow template and a repository config, a maintainer, the Actions simulator running the
 * bundled Action, and a report folder every job may write. Everything a scenario reads back
 * (refs, comments, pull requests, the mission state) comes from the fake, through the API.
 */
import { access, chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { gitText } from "../../../src/git/run-git.ts";
import { createGitHub, type GitHubPort } from "../../../src/github/index.ts";
import { createGitHubMissionStore } from "../../../src/store/index.ts";
import type { Mission } from "../../../src/mission/document.ts";
import {
  createActionsSimulator,
  runUntilQuiet,
  type ActionsSimulator,
  type JobHookInfo,
  type StepHookInfo,
  type RunResult,
} from "../../support/actions-sim/index.ts";
import { startFakeGitHub, type FakeGitHub } from "../../support/fake-github/index.ts";
import { testGit } from "../../support/git-repo.ts";

export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const REPO = "acme/demo";

/** A scenario that cannot run yet: what is missing and who provides it. */
export class NotReadyError extends Error {
  override readonly name = "NotReadyError";
}

/** The Action's parts a scenario needs: action.yml, its bundle, the workflow template. */
export async function requireAction(): Promise<void> {
  const missing: string[] = [];
  for (const path of ["action.yml", "templates/naruto.yml"]) {
    if (
      !(await access(join(REPO_ROOT, path)).then(
        () => true,
        () => false,
      ))
    )
      missing.push(path);
  }
  if (missing.length === 0) {
    const action = parse(await readFile(join(REPO_ROOT, "action.yml"), "utf8")) as { runs?: { main?: unknown } };
    const main = typeof action.runs?.main === "string" ? action.runs.main : "dist/index.js";
    if (
      !(await access(join(REPO_ROOT, main)).then(
        () => true,
        () => false,
      ))
    )
      missing.push(main);
  }
  if (missing.length > 0)
    throw new NotReadyError(`the bundled Action is not there yet (missing ${missing.join(", ")}): build it with the Action's bundle script`);
}

export interface World {
  readonly fake: FakeGitHub;
  readonly sim: ActionsSimulator;
  readonly maintainer: string;
  /** The GitHub port as the maintainer (reads refs, comments, pull requests, the mission state). */
  readonly github: GitHubPort;
  /** A folder every job may write (the hostile agents' reports). */
  readonly reports: string;
  /** Posts `body` on issue #1 as the maintainer and runs the `issue_comment` event; returns the run. */
  comment(body: string): Promise<RunResult | null>;
  /** Runs every dispatch until none is new. */
  settle(maxRuns?: number): Promise<RunResult[]>;
  mission(id: string): Promise<Mission | null>;
  missionIds(): Promise<string[]>;
  /** `git` in the fake's bare repository (reading refs and objects the way a clone would see them). */
  bareGit(...args: string[]): Promise<string>;
  close(): Promise<void>;
}

export interface WorldInput {
  /** `.github/naruto.yml` of the repository, or made from the world's reports folder. */
  readonly config: string | ((reports: string) => string);
  /** More files of the first commit (or made from the world's reports folder). */
  readonly files?: Readonly<Record<string, string>> | ((reports: string) => Readonly<Record<string, string>>);
  readonly beforeJob?: (info: JobHookInfo) => Promise<void> | void;
  /** Before and after each step of each job: a test playing a process of that job (see the simulator's `stepHook`). */
  readonly stepHook?: (info: StepHookInfo) => Promise<void> | void;
  /** Runs at once (default 1: one at a time, deterministic); see `runUntilQuiet`. */
  readonly parallelRuns?: number;
  /** `.github/workflows/naruto.yml` (default: templates/naruto.yml as it is). */
  readonly workflow?: string;
  /** More folders every job may write, and more of the runner's environment (its .env). */
  readonly sharedDirs?: readonly string[];
  readonly runnerEnv?: Readonly<Record<string, string>>;
  /** Matrix legs at once (default the simulator's 2). */
  readonly legConcurrency?: number;
  /** The fake plays a GitHub Enterprise Server of this version (fake-github's `ghesVersion`). */
  readonly ghesVersion?: string;
  /** The repository's secrets the workflow sees; a function gets the fake (to mint or read tokens). */
  readonly secrets?: Readonly<Record<string, string>> | ((fake: FakeGitHub) => Readonly<Record<string, string>>);
  /** The repository's variables. */
  readonly vars?: Readonly<Record<string, string>>;
  /** Runs before the mission: branch protection, more users (the fake is ready, the repository made). */
  readonly prepare?: (fake: FakeGitHub) => void;
}

export async function startWorld(input: WorldInput): Promise<World> {
  await requireAction();
  const fake = await startFakeGitHub(input.ghesVersion === undefined ? {} : { ghesVersion: input.ghesVersion });
  const cleanup: (() => Promise<void>)[] = [() => fake.close()];
  try {
    const maintainer = fake.addUser("octo-maintainer", { permission: "write" }).token;
    const reports = await mkdtemp(join(tmpdir(), "e2e-reports-"));
    await chmod(reports, 0o777);
    cleanup.push(() => rm(reports, { recursive: true, force: true }));
    const repo = await fake.createRepo({
      owner: "acme",
      name: "demo",
      files: {
        "README.md": "# demo\n",
        ".github/workflows/naruto.yml": input.workflow ?? (await readFile(join(REPO_ROOT, "templates/naruto.yml"), "utf8")),
        ".github/naruto.yml": typeof input.config === "string" ? input.config : input.config(reports),
        ...(typeof input.files === "function" ? input.files(reports) : input.files),
      },
      issues: [{ title: "Build the tiny library", body: "Please.", user: "octo-maintainer" }],
    });
    input.prepare?.(fake);
    const sim = await createActionsSimulator({
      fake,
      repo: REPO,
      actionDir: REPO_ROOT,
      sharedDirs: [reports, ...(input.sharedDirs ?? [])],
      // Between writes GitHub wants a second; the fake does not.
      // The watch job reads its run's jobs every 15 s on GitHub; every 0.3 s here.
      runnerEnv: { ...input.runnerEnv, NARUTO_GITHUB_WRITE_INTERVAL_MS: "0", NARUTO_WATCH_INTERVAL_MS: "300" },
      ...(input.secrets === undefined ? {} : { secrets: typeof input.secrets === "function" ? input.secrets(fake) : input.secrets }),
      ...(input.vars === undefined ? {} : { vars: input.vars }),
      ...(input.legConcurrency !== undefined ? { legConcurrency: input.legConcurrency } : {}),
      ...(input.beforeJob !== undefined ? { beforeJob: input.beforeJob } : {}),
      ...(input.stepHook !== undefined ? { stepHook: input.stepHook } : {}),
    });
    cleanup.push(() => sim.close());
    const github = createGitHub({ token: maintainer, repo: { owner: "acme", repo: "demo" }, baseUrl: fake.apiUrl, userAgent: "naruto-e2e" });
    const store = createGitHubMissionStore({ github });
    const git = testGit();
    return {
      fake,
      sim,
      maintainer,
      github,
      reports,
      comment: async (body) => {
        const response = await fetch(`${fake.apiUrl}/repos/${REPO}/issues/1/comments`, {
          method: "POST",
          headers: { authorization: `token ${maintainer}`, "content-type": "application/json", accept: "application/vnd.github+json" },
          body: JSON.stringify({ body }),
        });
        const created = (await response.json()) as { id?: unknown };
        if (response.status !== 201 || typeof created.id !== "number") throw new Error(`posting the comment answered ${response.status}`);
        return sim.trigger({ event: "issue_comment", payload: fake.payloads.issueComment({ repo: REPO, commentId: created.id }) });
      },
      settle: (maxRuns) =>
        runUntilQuiet({
          fake,
          simulator: sim,
          ...(maxRuns !== undefined ? { maxRuns } : {}),
          ...(input.parallelRuns !== undefined ? { parallelRuns: input.parallelRuns } : {}),
        }),
      mission: async (id) => (await store.load(id))?.mission ?? null,
      missionIds: () => store.list(),
      bareGit: (...args) => gitText(git, { args, cwd: repo.dir }),
      close: async () => {
        for (const step of cleanup.reverse()) await step().catch(() => undefined);
      },
    };
  } catch (error) {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
    throw error;
  }
}
