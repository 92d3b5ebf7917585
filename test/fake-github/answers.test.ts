/**
 * GitHub's own description judges the fake's answers. The fake checks every success answer it
 * gives against the response schemas of `@octokit/openapi` (answers.ts) and records a mismatch
 * as a violation; this suite makes it give every answer naruto can get: each operation of the
 * subset, at each success status GitHub documents for it, through naruto's real port
 * (src/github/) where the port calls it and through Octokit for the rest (the App's endpoints,
 * and reads the fake serves for tests). Other suites that end with `assertNoViolations()` check
 * the answers they got the same way.
 */
import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDoctorGitHub } from "../../src/doctor/index.ts";
import type { GitHubPort } from "../../src/github/index.ts";
import { successStatuses, validateAnswer } from "../support/fake-github/answers.ts";
import { OPERATIONS, operationKey } from "../support/fake-github/openapi.ts";
import { startTarget, type PortTarget } from "../github/target.ts";

let t: PortTarget;
let github: GitHubPort;
let fake: NonNullable<PortTarget["fake"]>;
let octokit: Octokit;
const repo = { owner: "acme", repo: "demo" };

beforeAll(async () => {
  t = await startTarget({});
  if (t.fake === null) throw new Error("the fake GitHub did not start");
  fake = t.fake;
  github = t.github;
  octokit = new Octokit({ auth: fake.tokenFor("octo-maintainer"), baseUrl: fake.apiUrl });
});
afterAll(async () => {
  await t.close();
});

/** Every exchange through the port and Octokit that makes the fake give each kind of answer. */
async function exchangeEverything(): Promise<void> {
  const main = await github.getRef("refs/heads/main");
  if (main === null) throw new Error("acme/demo has no main");
  // Files, issues, comments, reactions, permissions.
  await github.readFile({ path: "README.md" });
  await github.readFile({ path: "README.md", ref: main });
  await octokit.rest.repos.getContent({ ...repo, path: "src" });
  await octokit.rest.repos.get(repo);
  const comment = await github.upsertComment({ issue: 1, marker: "<!-- naruto:answers -->", body: "first" });
  await github.upsertComment({ issue: 1, marker: "<!-- naruto:answers -->", body: "second" });
  await github.addReaction({ target: { comment: comment.id }, content: "eyes" });
  await github.addReaction({ target: { comment: comment.id }, content: "eyes" });
  await github.addReaction({ target: { issue: 1 }, content: "rocket" });
  await github.addReaction({ target: { issue: 1 }, content: "rocket" });
  await github.openIssue({ title: "naruto report", body: "report", marker: "<!-- naruto:report -->", since: "2020-01-01T00:00:00Z" });
  await octokit.rest.issues.get({ ...repo, issue_number: 1 });
  await github.getIssue({ number: 1 });
  await github.listRecentComments({ since: "2020-01-01T00:00:00Z" });
  await octokit.rest.issues.getComment({ ...repo, comment_id: comment.id });
  await octokit.rest.issues.deleteComment({ ...repo, comment_id: comment.id });
  await github.permission({ user: "octo-maintainer" });

  // Git data and refs.
  const blob = await github.createBlob("answer\n");
  await octokit.rest.git.getBlob({ ...repo, file_sha: blob });
  const { tree } = await github.getCommit(main);
  const newTree = await github.createTree({ entries: [{ path: "answers/a.txt", mode: "100644", sha: blob }], base: tree });
  await octokit.rest.git.getTree({ ...repo, tree_sha: newTree, recursive: "1" });
  const head = await github.createCommit({ message: "answers", tree: newTree, parents: [main] });
  await github.createRef({ ref: "refs/heads/answers/work", sha: main });
  await github.updateRef({ ref: "refs/heads/answers/work", sha: head });
  await github.listRefs("refs/heads/answers/");

  // Links and submodules: a link to a file answers as that file, a dangling one as a link.
  const links = await github.createTree({
    base: tree,
    entries: [
      { path: "docs/readme-link", mode: "120000", sha: await github.createBlob("../README.md") },
      { path: "dangling", mode: "120000", sha: await github.createBlob("nowhere.txt") },
      { path: "vendor/lib", mode: "160000", sha: main },
      { path: ".gitmodules", mode: "100644", content: '[submodule "vendor/lib"]\n\tpath = vendor/lib\n\turl = https://example.test/lib.git\n' },
    ],
  });
  const linked = await github.createCommit({ message: "links", tree: links, parents: [main] });
  expect(await github.readFile({ path: "docs/readme-link", ref: linked })).toBe("# demo\n");
  expect((await octokit.rest.repos.getContent({ ...repo, path: "dangling", ref: linked })).data).toMatchObject({ type: "symlink", target: "nowhere.txt" });
  expect((await octokit.rest.repos.getContent({ ...repo, path: "vendor/lib", ref: linked })).data).toMatchObject({
    type: "submodule",
    submodule_git_url: "https://example.test/lib.git",
  });
  await octokit.rest.repos.getContent({ ...repo, path: "docs", ref: linked });
  await github.compareCommits({ base: main, head });

  // Pull requests and check runs.
  const opened = await github.createPullRequest({ head: "answers/work", base: "main", title: "answers", body: "a pull request" });
  await github.findPullRequest({ head: "answers/work" });
  await github.getPullRequest({ number: opened.number });
  await octokit.rest.pulls.listFiles({ ...repo, pull_number: opened.number });
  const check = await github.createCheckRun({ name: "naruto", headSha: head, externalId: "answers", status: "in_progress" });
  // The answer to this create is lost: the port finds the check run it made by listing them.
  fake.faults.push({ method: "POST", path: /\/check-runs$/, status: 502, after: true });
  await github.createCheckRun({ name: "naruto verify", headSha: head, externalId: "answers-2", status: "queued" });
  await github.updateCheckRun({ id: check.id, status: "completed", conclusion: "success", output: { title: "done", summary: "all good" } });
  await github.updatePullRequest({ number: opened.number, state: "closed" });
  fake.addUser("octo-forker");
  const forked = await fake.openForkPullRequest({ repo: "acme/demo", forkOwner: "octo-forker", headRef: "main", head, base: "main", title: "from a fork" });
  await github.getPullRequest({ number: forked });
  await octokit.rest.pulls.list({ ...repo, state: "all" });
  await github.deleteRef("refs/heads/answers/work");

  // Workflow dispatch and runs: with the run (200) as naruto asks, and without (204).
  const { runId } = await github.dispatchWorkflow({ workflow: "naruto.yml", ref: "main", inputs: { mission: "m-answers" } });
  if (runId === null) throw new Error("the fake answered the dispatch without the run");
  const jobId = fake.setJob(runId, { name: "work", status: "in_progress" });
  fake.setJobStep(jobId, { number: 1, name: "naruto upload", status: "completed", conclusion: "success" });
  await github.getRun({ runId });
  await github.listJobs({ runId });
  // An artifact uploaded with the job's runtime token, listed and downloaded over REST.
  const runtime = fake.issueRuntimeToken({ repo: "acme/demo", runId, jobId });
  const uploaded = await fetch(`${fake.url}/_actions/results/artifacts?name=answers`, {
    method: "POST",
    headers: { authorization: `Bearer ${runtime}` },
    body: new Uint8Array(EMPTY_ZIP),
  });
  if (uploaded.status !== 201) throw new Error(`the results service answered the upload ${uploaded.status}`);
  const [artifact] = await github.listRunArtifacts({ runId });
  if (artifact === undefined) throw new Error("the upload is not listed");
  await github.downloadArtifact({ artifactId: artifact.id });
  await github.cancelRun({ runId });
  await octokit.rest.actions.createWorkflowDispatch({ ...repo, workflow_id: "naruto.yml", ref: "main", inputs: { mission: "m-2" } });

  // The App's own endpoints, with its JWT (as Probot and octokit-auth-app call them).
  const app = new Octokit({ auth: fake.appJwt(), baseUrl: fake.apiUrl });
  await app.rest.apps.getAuthenticated();
  const { data: installation } = await app.rest.apps.getRepoInstallation(repo);
  await app.rest.apps.createInstallationAccessToken({ installation_id: installation.id, permissions: { contents: "read" }, repositories: ["demo"] });

  // `naruto doctor`'s reads of the Actions settings (an admin's), through its own port.
  const admin = fake.addUser("octo-answers-admin", { permission: "admin" }).token;
  fake.setActionsSettings({
    repo: "acme/demo",
    secrets: ["ANTHROPIC_API_KEY"],
    variables: { NARUTO_BOT_LOGIN: "naruto[bot]" },
    orgSecrets: ["SHARED_KEY"],
    orgVariables: { SHARED: "yes" },
  });
  const doctor = createDoctorGitHub({
    repo: { host: "127.0.0.1", owner: "acme", name: "demo" },
    token: admin,
    baseUrl: fake.apiUrl,
    app: null,
    userAgent: "naruto-answers",
  });
  for (const read of [await doctor.secretNames(), await doctor.variables(), await doctor.workflowPermissions()]) expect(read.ok).toBe(true);
}

/** A zip with no entries: its end-of-central-directory record alone. */
const EMPTY_ZIP = Buffer.from([0x50, 0x4b, 0x05, 0x06, ...new Array<number>(18).fill(0)]);

describe("the fake's answers", () => {
  beforeAll(async () => {
    await exchangeEverything();
  });

  it("break no part of GitHub's description of them", () => {
    expect(fake.violations.flatMap((v) => v.problems.map((p) => `${v.method} ${v.path}: ${p}`))).toEqual([]);
  });

  it("were given for every operation of the subset, at every success status GitHub documents", () => {
    const answered = new Set(fake.requests.map((r) => `${r.operation ?? ""} ${r.status}`));
    const missing = OPERATIONS.flatMap((op) => successStatuses(operationKey(op)).map((status) => `${operationKey(op)} ${status}`)).filter(
      (pair) => !answered.has(pair),
    );
    expect(missing).toEqual([]);
  });

  it("are judged: an answer without a required field, or with one GitHub does not describe, is reported", () => {
    const operation = "GET /repos/{owner}/{repo}/git/ref/{ref}";
    const ref = {
      ref: "refs/heads/main",
      node_id: "MDM6UmVmMQ==",
      url: `${fake.apiUrl}/repos/acme/demo/git/refs/heads/main`,
      object: { type: "commit", sha: "a".repeat(40), url: `${fake.apiUrl}/x` },
    };
    expect(validateAnswer({ operation, status: 200, body: ref })).toEqual([]);
    const { node_id: _dropped, ...withoutNodeId } = ref;
    expect(validateAnswer({ operation, status: 200, body: withoutNodeId })).toEqual(["answer.node_id: is required"]);
    expect(validateAnswer({ operation, status: 200, body: { ...ref, merged: true } })).toEqual(["answer.merged: is not a documented field"]);
    expect(validateAnswer({ operation, status: 200, body: { ...ref, url: "not a url" } })).toEqual(['answer.url: "not a url" is not a URI']);
    expect(validateAnswer({ operation, status: 404, body: { message: "Not Found" } })).toEqual([]);
  });
});
