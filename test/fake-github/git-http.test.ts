/**
 * Real git over the fake's smart HTTP: clone, fetch and push with `x-access-token:TOKEN`
 * URLs, GitHub's answers for missing or weak credentials, and one set of refs shared with
 * the REST API.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitError } from "../../src/git/run-git.ts";
import { forgeCommit } from "../support/forged-tree.ts";
import { testGit } from "../support/git-repo.ts";
import { api, field, scratch, startDemo, type Demo } from "./helpers.ts";

let demo: Demo;
let work: Awaited<ReturnType<typeof scratch>>;

beforeAll(async () => {
  demo = await startDemo();
  work = await scratch();
});
afterAll(async () => {
  await demo.github.close();
  await work.remove();
});

async function clone(name: string, token?: string): Promise<string> {
  const dir = join(work.dir, name);
  await work.git(work.dir, "clone", "-q", demo.github.gitUrl("acme/demo", token), dir);
  return dir;
}

async function commitFile(dir: string, path: string, content: string): Promise<string> {
  await writeFile(join(dir, path), content);
  await work.git(dir, "add", path);
  await work.git(dir, "commit", "-q", "-m", `change ${path}`);
  return work.git(dir, "rev-parse", "HEAD");
}

async function gitFails(run: Promise<string>): Promise<string> {
  const error: unknown = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GitError);
  return (error as GitError).stderr;
}

describe("git over smart HTTP", () => {
  it("clones with a token and sees the seeded commit", async () => {
    const dir = await clone("clone", demo.maintainer);
    expect(await work.git(dir, "rev-parse", "HEAD")).toBe(demo.mainSha);
    expect(await work.git(dir, "show", "HEAD:README.md")).toBe("# demo");
  });

  it("moves the same ref the REST API reads when a writer pushes, and rejects a non-fast-forward push", async () => {
    const a = await clone("writer-a", demo.maintainer);
    const b = await clone("writer-b", demo.maintainer);
    await work.git(a, "checkout", "-q", "-b", "feature");
    const pushed = await commitFile(a, "feature.txt", "one\n");
    await work.git(a, "push", "-q", "origin", "feature");
    const ref = await api(demo.github, demo.maintainer)("GET", "/repos/acme/demo/git/ref/heads/feature");
    expect(field(ref.body, "object", "sha")).toBe(pushed);

    await work.git(b, "checkout", "-q", "-b", "feature");
    await commitFile(b, "other.txt", "two\n");
    const stderr = await gitFails(work.git(b, "push", "-q", "origin", "feature"));
    expect(stderr).toMatch(/rejected|non-fast-forward|fetch first/);
    const after = await api(demo.github, demo.maintainer)("GET", "/repos/acme/demo/git/ref/heads/feature");
    expect(field(after.body, "object", "sha")).toBe(pushed);
  });

  it("fetches what the REST API wrote", async () => {
    const call = api(demo.github, demo.maintainer);
    const tree = await call("POST", "/repos/acme/demo/git/trees", {
      base_tree: await treeOf(demo.mainSha),
      tree: [{ path: "rest.txt", mode: "100644", type: "blob", content: "via REST\n" }],
    });
    const commit = await call("POST", "/repos/acme/demo/git/commits", { message: "via REST", tree: field(tree.body, "sha"), parents: [demo.mainSha] });
    await call("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/from-rest", sha: field(commit.body, "sha") });
    const dir = await clone("fetcher", demo.maintainer);
    await work.git(dir, "fetch", "-q", "origin", "from-rest");
    expect(await work.git(dir, "show", "FETCH_HEAD:rest.txt")).toBe("via REST");
  });

  it("denies a push by a read-only user with 403 and lets them clone", async () => {
    const dir = await clone("reader", demo.outsider);
    await commitFile(dir, "reader.txt", "nope\n");
    const stderr = await gitFails(work.git(dir, "push", "-q", "origin", "HEAD:reader-branch"));
    expect(stderr).toMatch(/403|denied/);
    const ref = await api(demo.github, demo.maintainer)("GET", "/repos/acme/demo/git/ref/heads/reader-branch");
    expect(ref.status).toBe(404);
  });

  it("answers a private repository without credentials with a challenge, and a stranger with not found", async () => {
    const anonymous = await fetch(`${demo.github.url}/acme/demo.git/info/refs?service=git-upload-pack`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Basic/);
    const stderr = await gitFails(clone("stranger", demo.stranger));
    expect(stderr).toMatch(/not found/i);
    const bad = await gitFails(clone("bad-token", "ghp_not_a_token"));
    expect(bad).toMatch(/Authentication failed|401/);
  });

  it("takes installation tokens: read-only ones cannot push, and workflow files need the workflows permission", async () => {
    const readOnly = demo.github.issueAppToken({ owner: "acme", permissions: { contents: "read" } }).token;
    expect(readOnly.length).toBeGreaterThan(100);
    const dir = await clone("bot-reader", readOnly);
    await commitFile(dir, "bot.txt", "bot\n");
    expect(await gitFails(work.git(dir, "push", "-q", "origin", "HEAD:bot-branch"))).toMatch(/403|denied/);

    const writer = demo.github.issueAppToken({ owner: "acme", permissions: { contents: "write" } }).token;
    await work.git(dir, "remote", "set-url", "origin", demo.github.gitUrl("acme/demo", writer));
    await work.git(dir, "push", "-q", "origin", "HEAD:bot-branch");
    await commitFile(dir, ".github/workflows/naruto.yml", "name: changed\non: push\n");
    const refused = await gitFails(work.git(dir, "push", "-q", "origin", "HEAD:bot-branch"));
    expect(refused).toContain("without `workflows` permission");
  });

  it("refuses to delete the default branch", async () => {
    const dir = await clone("deleter", demo.maintainer);
    expect(await gitFails(work.git(dir, "push", "-q", "origin", ":main"))).toMatch(/refusing to delete the current branch/);
  });

  it("checks pushed objects with git's fsck rules, as github.com does, unless a repository turns it off", async () => {
    const dir = await clone("fsck", demo.maintainer);
    const forged = await forgeCommit(testGit(), dir, { base: demo.mainSha, top: [["src", [[".GIT", [["config", "[core]\n"]]]]]], message: "planted\n" });
    expect(await gitFails(work.git(dir, "push", "-q", "origin", `${forged.commit}:refs/heads/planted`))).toMatch(/hasDotgit/);
    await demo.github.createRepo({ owner: "acme", name: "lenient", fsckObjects: false });
    await work.git(dir, "push", "-q", demo.github.gitUrl("acme/lenient", demo.maintainer), `${forged.commit}:refs/heads/planted`);
  });
});

async function treeOf(commit: string): Promise<string> {
  const answer = await api(demo.github, demo.maintainer)("GET", `/repos/acme/demo/git/commits/${commit}`);
  return String(field(answer.body, "tree", "sha"));
}
