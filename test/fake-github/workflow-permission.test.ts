/**
 * The fake's App has exactly app.yml's permissions (no `workflows`), and GitHub's rule for
 * workflow files holds for every way a ref moves: REST create, REST update and `git push`.
 * A new ref is compared with the default branch's head (a branch lagging behind it under
 * `.github/workflows/` is refused too); an update with the old commit; a commit with no history
 * in common with the default branch (naruto's state branches) only with nothing.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitError } from "../../src/git/run-git.ts";
import { APP_MANIFEST, manifestPermissions } from "../support/fake-github/app-manifest.ts";
import { startFakeGitHub } from "../support/fake-github/index.ts";
import { DEFAULT_APP_PERMISSIONS } from "../support/fake-github/world.ts";
import { api, field, scratch, startDemo, type Demo } from "./helpers.ts";

let demo: Demo;
let work: Awaited<ReturnType<typeof scratch>>;
/** The App's own installation token, as naruto gets it. */
let app: ReturnType<typeof api>;
let maintainer: ReturnType<typeof api>;

beforeAll(async () => {
  demo = await startDemo();
  work = await scratch();
  app = api(demo.github, demo.github.issueAppToken({ owner: "acme" }).token);
  maintainer = api(demo.github, demo.maintainer);
});
afterAll(async () => {
  demo.github.assertNoViolations();
  await demo.github.close();
  await work.remove();
});

/** A commit with `files` on top of `parent` (null: a commit with no parent holding only them), written by the maintainer. */
async function commit(parent: string | null, files: Record<string, string>): Promise<string> {
  const base = parent === null ? undefined : field((await maintainer("GET", `/repos/acme/demo/git/commits/${parent}`)).body, "tree", "sha");
  const tree = await maintainer("POST", "/repos/acme/demo/git/trees", {
    ...(base === undefined ? {} : { base_tree: base }),
    tree: Object.entries(files).map(([path, content]) => ({ path, mode: "100644", type: "blob", content })),
  });
  const made = await maintainer("POST", "/repos/acme/demo/git/commits", {
    message: "change",
    tree: field(tree.body, "sha"),
    parents: parent === null ? [] : [parent],
  });
  return String(field(made.body, "sha"));
}

const REFUSAL = (path: string) => `refusing to allow a GitHub App to create or update workflow \`${path}\` without \`workflows\` permission`;

describe("the fake's App permissions", () => {
  it("are app.yml's default_permissions, without workflows", async () => {
    const expected = manifestPermissions(await readFile(APP_MANIFEST, "utf8"));
    expect(expected).not.toHaveProperty("workflows");
    const jwt = api(demo.github, demo.github.appJwt());
    const issued = await jwt("POST", `/app/installations/${demo.github.installationId("acme")}/access_tokens`, {});
    expect(field(issued.body, "permissions")).toEqual(expected);
    const wider = await jwt("POST", `/app/installations/${demo.github.installationId("acme")}/access_tokens`, { permissions: { workflows: "write" } });
    expect(wider.status).toBe(422);
  });

  it.each([
    ["a manifest's permissions", "default_permissions:\n  contents: read\n  checks: write\n", { contents: "read", checks: "write" }],
    ["no permissions at all", "name: x\n", /default_permissions is missing/],
    ["an unknown level", "default_permissions:\n  contents: all\n", /default_permissions\.contents is "all"/],
  ])("reads %s", (_what, text, expected) => {
    if (expected instanceof RegExp) expect(() => manifestPermissions(text)).toThrow(expected);
    else expect(manifestPermissions(text)).toEqual(expected);
  });
});

describe("refs that touch workflow files, without the workflows permission", () => {
  it("refuses to create a ref at a commit that adds a workflow (REST), and lets a user do it", async () => {
    const adds = await commit(demo.mainSha, { ".github/workflows/x.yml": "on: push\n" });
    const refused = await app("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/adds-workflow", sha: adds });
    expect(refused.status).toBe(403);
    expect(field(refused.body, "message")).toBe(REFUSAL(".github/workflows/x.yml"));
    expect((await maintainer("GET", "/repos/acme/demo/git/ref/heads/adds-workflow")).status).toBe(404);
    expect((await maintainer("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/adds-workflow", sha: adds })).status).toBe(201);
  });

  it("creates refs whose workflows are the default branch's, and refs with no history in common that hold none", async () => {
    const readme = await commit(demo.mainSha, { "README.md": "# changed\n" });
    expect((await app("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/readme", sha: readme })).status).toBe(201);
    const state = await commit(null, { "mission.json": "{}\n" });
    expect((await app("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/naruto-state/m-1", sha: state })).status).toBe(201);
    const planted = await commit(null, { ".github/workflows/x.yml": "on: push\n" });
    expect((await app("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/planted", sha: planted })).status).toBe(403);
  });

  it("refuses to update a ref onto a workflow change, and allows other updates", async () => {
    await maintainer("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/moving", sha: demo.mainSha });
    const fine = await commit(demo.mainSha, { "src/b.ts": "export const b = 2;\n" });
    expect((await app("PATCH", "/repos/acme/demo/git/refs/heads/moving", { sha: fine })).status).toBe(200);
    const edits = await commit(fine, { ".github/workflows/naruto.yml": "name: edited\non: push\n" });
    const refused = await app("PATCH", "/repos/acme/demo/git/refs/heads/moving", { sha: edits, force: true });
    expect(refused.status).toBe(403);
    expect(field(refused.body, "message")).toBe(REFUSAL(".github/workflows/naruto.yml"));
  });

  it("refuses a new ref that lags behind the default branch's workflows, by REST and by push", async () => {
    await demo.github.createRepo({ owner: "acme", name: "lagging", files: { ".github/workflows/ci.yml": "on: push\n" } });
    const lagging = api(demo.github, demo.maintainer);
    const old = String(field((await lagging("GET", "/repos/acme/lagging/git/ref/heads/main")).body, "object", "sha"));
    const tree = await lagging("POST", "/repos/acme/lagging/git/trees", {
      base_tree: field((await lagging("GET", `/repos/acme/lagging/git/commits/${old}`)).body, "tree", "sha"),
      tree: [{ path: ".github/workflows/ci.yml", mode: "100644", type: "blob", content: "on: pull_request\n" }],
    });
    const newer = await lagging("POST", "/repos/acme/lagging/git/commits", { message: "ci", tree: field(tree.body, "sha"), parents: [old] });
    expect((await lagging("PATCH", "/repos/acme/lagging/git/refs/heads/main", { sha: field(newer.body, "sha") })).status).toBe(200);

    const bot = demo.github.issueAppToken({ owner: "acme" }).token;
    const refused = await api(demo.github, bot)("POST", "/repos/acme/lagging/git/refs", { ref: "refs/heads/old", sha: old });
    expect(refused.status).toBe(403);
    expect(field(refused.body, "message")).toBe(REFUSAL(".github/workflows/ci.yml"));

    const dir = join(work.dir, "lagging");
    await work.git(work.dir, "clone", "-q", demo.github.gitUrl("acme/lagging", bot), dir);
    expect(await pushFails(dir, `${old}:refs/heads/old`)).toContain(REFUSAL(".github/workflows/ci.yml"));
    await writeFile(join(dir, "notes.md"), "notes\n");
    await work.git(dir, "add", "notes.md");
    await work.git(dir, "-c", "user.name=t", "-c", "user.email=t@example.test", "commit", "-q", "-m", "notes");
    await work.git(dir, "push", "-q", "origin", "HEAD:refs/heads/notes");
  });
});

describe("the default branch changes a workflow file during a mission (issue 33)", () => {
  // Already GitHub's rule in the fake before the mission-side fix; these pin the cases a mission meets.
  it("refuses new branches on the old base and moving a branch onto the new one, and lets existing branches move on the old base", async () => {
    await demo.github.createRepo({ owner: "acme", name: "midway", files: { ".github/workflows/ci.yml": "on: push\n" } });
    const rest = api(demo.github, demo.maintainer);
    const bot = demo.github.issueAppToken({ owner: "acme" }).token;
    const asBot = api(demo.github, bot);
    const make = async (parent: string, files: Record<string, string>) => {
      const tree = await rest("POST", "/repos/acme/midway/git/trees", {
        base_tree: field((await rest("GET", `/repos/acme/midway/git/commits/${parent}`)).body, "tree", "sha"),
        tree: Object.entries(files).map(([path, content]) => ({ path, mode: "100644", type: "blob", content })),
      });
      return String(
        field((await rest("POST", "/repos/acme/midway/git/commits", { message: "c", tree: field(tree.body, "sha"), parents: [parent] })).body, "sha"),
      );
    };
    const base = String(field((await rest("GET", "/repos/acme/midway/git/ref/heads/main")).body, "object", "sha"));
    // The mission starts: its queue branch and a first worker branch, at or on the base.
    expect((await asBot("POST", "/repos/acme/midway/git/refs", { ref: "refs/heads/naruto/m-1", sha: base })).status).toBe(201);
    const first = await make(base, { "src/a.ts": "a\n" });
    expect((await asBot("POST", "/repos/acme/midway/git/refs", { ref: "refs/heads/naruto/m-1--a", sha: first })).status).toBe(201);
    // A maintainer changes the workflow on main.
    const main = await make(base, { ".github/workflows/ci.yml": "on: pull_request\n" });
    expect((await rest("PATCH", "/repos/acme/midway/git/refs/heads/main", { sha: main })).status).toBe(200);

    // The queue branch still moves on the old base (compared with its old commit) ...
    expect((await asBot("PATCH", "/repos/acme/midway/git/refs/heads/naruto/m-1", { sha: first })).status).toBe(200);
    // ... but a new worker branch on it is refused (compared with main), by REST and by push ...
    const second = await make(first, { "src/b.ts": "b\n" });
    const refused = await asBot("POST", "/repos/acme/midway/git/refs", { ref: "refs/heads/naruto/m-1--b", sha: second });
    expect([refused.status, field(refused.body, "message")]).toEqual([403, REFUSAL(".github/workflows/ci.yml")]);
    const dir = join(work.dir, "midway");
    await work.git(work.dir, "clone", "-q", demo.github.gitUrl("acme/midway", bot), dir);
    await work.git(dir, "checkout", "-q", "--detach", "origin/naruto/m-1--a");
    await writeFile(join(dir, "c.ts"), "c\n");
    await work.git(dir, "add", "c.ts");
    await work.git(dir, "-c", "user.name=t", "-c", "user.email=t@example.test", "commit", "-q", "-m", "c");
    expect(await pushFails(dir, "HEAD:refs/heads/naruto/m-1--c")).toContain(REFUSAL(".github/workflows/ci.yml"));
    // ... creating the existing queue branch again is refused the same way (before "Reference already exists"),
    const again = await asBot("POST", "/repos/acme/midway/git/refs", { ref: "refs/heads/naruto/m-1", sha: first });
    expect(again.status).toBe(403);
    // an existing worker branch may be force-pushed on the old base,
    await work.git(dir, "push", "-q", "--force", "origin", "HEAD:refs/heads/naruto/m-1--a");
    // and moving the queue onto the new main (a refresh) is refused.
    const replayed = await make(main, { "src/a.ts": "a\n" });
    const refresh = await asBot("PATCH", "/repos/acme/midway/git/refs/heads/naruto/m-1", { sha: replayed, force: true });
    expect([refresh.status, field(refresh.body, "message")]).toEqual([403, REFUSAL(".github/workflows/ci.yml")]);
    // A person may do all of it.
    expect((await rest("POST", "/repos/acme/midway/git/refs", { ref: "refs/heads/naruto/m-1--b", sha: second })).status).toBe(201);
  });
});

async function pushFails(dir: string, refspec: string): Promise<string> {
  const error: unknown = await work.git(dir, "push", "-q", "origin", refspec).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof GitError)) throw new Error(`the push of ${refspec} was accepted`);
  return error.message;
}

describe("an App that has the workflows permission", () => {
  it("may create and move refs onto workflow changes", async () => {
    const github = await startFakeGitHub({ app: { permissions: { ...DEFAULT_APP_PERMISSIONS, workflows: "write" } } });
    try {
      await github.createRepo({ owner: "acme", name: "demo", files: { "README.md": "# demo\n" } });
      const bot = api(github, github.issueAppToken({ owner: "acme" }).token);
      const main = String(field((await bot("GET", "/repos/acme/demo/git/ref/heads/main")).body, "object", "sha"));
      const tree = await bot("POST", "/repos/acme/demo/git/trees", {
        base_tree: field((await bot("GET", `/repos/acme/demo/git/commits/${main}`)).body, "tree", "sha"),
        tree: [{ path: ".github/workflows/x.yml", mode: "100644", type: "blob", content: "on: push\n" }],
      });
      const adds = String(
        field((await bot("POST", "/repos/acme/demo/git/commits", { message: "ci", tree: field(tree.body, "sha"), parents: [main] })).body, "sha"),
      );
      expect((await bot("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/ci", sha: adds })).status).toBe(201);
      expect((await bot("PATCH", "/repos/acme/demo/git/refs/heads/main", { sha: adds })).status).toBe(200);
    } finally {
      await github.close();
    }
  });
});
