/**
 * The repository's own CI, as GitHub starts it: a `push` or `pull_request` workflow runs for
 * events made with an App installation token or a user's token, never for those made with a
 * workflow job's `GITHUB_TOKEN` (GitHub's rule against runs that start runs); each of its jobs
 * is a check run of the GitHub Actions app on the event's commit, and a pull request whose base
 * requires that check stays `blocked` until it reports success. Comments likewise: a comment a
 * job made with its `GITHUB_TOKEN` starts no `issue_comment` workflow, an App's or a user's does.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeGitHub, type FakeGitHub } from "../fake-github/index.ts";
import { createActionsSimulator, type ActionsSimulator } from "./index.ts";

const CI = `name: ci
on:
  push:
    branches-ignore: ["naruto/**"]
  pull_request:
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: echo "\${{ github.event_name }} \${{ github.sha }}"
`;

const ON_COMMENT = `name: on-comment
on:
  issue_comment:
    types: [created]
jobs:
  answer:
    runs-on: ubuntu-latest
    steps:
      - run: echo "comment by \${{ github.event.comment.user.login }}"
`;

let fake: FakeGitHub;
let sim: ActionsSimulator;
let main = "";
const REPO = "acme/ci";

beforeAll(async () => {
  fake = await startFakeGitHub();
  fake.addUser("octo-maintainer", { permission: "write" });
  await fake.createRepo({
    owner: "acme",
    name: "ci",
    files: { "README.md": "# ci\n", ".github/workflows/ci.yml": CI, ".github/workflows/on-comment.yml": ON_COMMENT },
  });
  fake.setRequiredChecks(REPO, "main", ["test"]);
  sim = await createActionsSimulator({ fake, repo: REPO, actionDir: fileURLToPath(new URL("../../../", import.meta.url)) });
  main = (await call("octo-maintainer", "GET", `/repos/${REPO}/git/ref/heads%2Fmain`)).object.sha;
});
afterAll(async () => {
  await sim?.close();
  await fake?.close();
});

const tokens = new Map<string, string>();
function token(who: string): string {
  if (!tokens.has(who)) {
    tokens.set(
      who,
      who === "job"
        ? fake.issueAppToken({ owner: "acme", bot: "github-actions[bot]", workflowToken: true }).token
        : who === "app"
          ? fake.issueAppToken({ owner: "acme" }).token
          : fake.tokenFor(who),
    );
  }
  return tokens.get(who) ?? "";
}

// biome-ignore lint/suspicious/noExplicitAny: the answers are GitHub's JSON, read as the test needs
async function call(who: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${fake.apiUrl}${path}`, {
    method,
    headers: { authorization: `token ${token(who)}`, "content-type": "application/json", accept: "application/vnd.github+json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} as ${who}: ${response.status} ${text}`);
  return text === "" ? null : JSON.parse(text);
}

/** A commit on main's tree with one more file, on a new branch, as `who`. */
async function branch(who: string, name: string): Promise<string> {
  const tree = await call(who, "POST", `/repos/${REPO}/git/trees`, {
    base_tree: (await call(who, "GET", `/repos/${REPO}/git/commits/${main}`)).tree.sha,
    tree: [{ path: `${name}.txt`, mode: "100644", type: "blob", content: name }],
  });
  const commit = await call(who, "POST", `/repos/${REPO}/git/commits`, { message: name, tree: tree.sha, parents: [main] });
  await call(who, "POST", `/repos/${REPO}/git/refs`, { ref: `refs/heads/${name}`, sha: commit.sha });
  return commit.sha;
}

const checksOn = (sha: string) =>
  [...fake.repo(REPO).checkRuns.values()].filter((c) => c.headSha === sha).map((c) => `${c.name} ${c.status} ${c.conclusion ?? ""}`);

describe("the repository's CI", () => {
  it("does not run for a branch and pull request a job's GITHUB_TOKEN made: the required check stays pending", async () => {
    const head = await branch("job", "naruto/m-1");
    const pull = await call("job", "POST", `/repos/${REPO}/pulls`, { head: "naruto/m-1", base: "main", title: "the result" });
    expect(fake.repo(REPO).events.map((e) => `${e.event}${e.action ? `.${e.action}` : ""} ${e.actor.login} ${e.startsWorkflows}`)).toEqual([
      "push github-actions[bot] false",
      "pull_request.opened github-actions[bot] false",
    ]);
    expect(await sim.runEvents()).toEqual([]);
    expect(checksOn(head)).toEqual([]);
    expect((await call("octo-maintainer", "GET", `/repos/${REPO}/pulls/${pull.number}`)).mergeable_state).toBe("blocked");
  });

  it("runs for the same pull request closed and reopened with an App's installation token, and the check reports", async () => {
    const pull = (await call("app", "GET", `/repos/${REPO}/pulls?head=acme:naruto/m-1`))[0];
    await call("app", "PATCH", `/repos/${REPO}/pulls/${pull.number}`, { state: "closed" });
    await call("app", "PATCH", `/repos/${REPO}/pulls/${pull.number}`, { state: "open" });
    const runs = await sim.runEvents();
    expect(runs.map((r) => `${r.event} ${r.conclusion}`)).toEqual(["pull_request success"]);
    expect(runs[0]?.jobs[0]?.steps[0]?.log).toContain(`pull_request ${pull.head.sha}`);
    expect(checksOn(pull.head.sha)).toEqual(["test completed success"]);
    const after = await call("octo-maintainer", "GET", `/repos/${REPO}/pulls/${pull.number}`);
    expect(after.mergeable_state).toBe("clean");
    const listed = await call("octo-maintainer", "GET", `/repos/${REPO}/commits/${pull.head.sha}/check-runs`);
    expect(listed.check_runs.map((c: { name: string; app: { slug: string } }) => `${c.name} by ${c.app.slug}`)).toEqual(["test by github-actions"]);
  });

  it("runs for a user's push, on a branch the push trigger does not ignore", async () => {
    const head = await branch("octo-maintainer", "feature");
    const ignored = await branch("octo-maintainer", "naruto/m-2");
    const runs = await sim.runEvents();
    expect(runs.map((r) => `${r.event} ${r.conclusion}`)).toEqual(["push success"]);
    expect(checksOn(head)).toEqual(["test completed success"]);
    expect(checksOn(ignored)).toEqual([]);
    fake.assertNoViolations();
  });

  it("runs no issue_comment workflow for a comment a job's GITHUB_TOKEN made, and runs it for an App's and a user's", async () => {
    const issue = await call("octo-maintainer", "POST", `/repos/${REPO}/issues`, { title: "a mission" });
    const said = (who: string) => call(who, "POST", `/repos/${REPO}/issues/${issue.number}/comments`, { body: `/naruto said by ${who}` });
    await said("job");
    await said("app");
    await said("octo-maintainer");
    const comments = fake.repo(REPO).events.filter((e) => e.event === "issue_comment");
    expect(comments.map((e) => `${e.actor.login} ${e.startsWorkflows}`)).toEqual([
      "github-actions[bot] false",
      expect.stringMatching(/\[bot\] true$/),
      "octo-maintainer true",
    ]);
    // The repository's CI (push and pull_request) is the default: comments are asked for by name.
    expect(await sim.runEvents()).toEqual([]);
    const runs = await sim.runEvents({ events: ["issue_comment"] });
    expect(runs.map((r) => `${r.event} ${r.title} ${r.conclusion}`)).toEqual(["issue_comment on-comment success", "issue_comment on-comment success"]);
    expect(runs.map((r) => r.jobs[0]?.steps[0]?.log.trim())).toEqual([`comment by ${comments[1]?.actor.login}`, "comment by octo-maintainer"]);
    expect(await sim.runEvents({ events: ["issue_comment"] })).toEqual([]);
  });
});
