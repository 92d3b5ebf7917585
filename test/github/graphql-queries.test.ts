/**
 * Every GraphQL query naruto sends, as it goes over the wire, passes GitHub's published schema
 * (@octokit/graphql-schema): the port's GraphQL operations are driven against the fake (with
 * enough review threads for a second page, so `after` is sent too), the documents and variables
 * the fake received are validated against GitHub's schema, and every operation named in src/ must
 * have been among them, so a new query cannot skip this test.
 *
 * Bite check (done once, by hand): with `isOutdated` misspelt `isOutdatd` in
 * src/github/adapter-review-threads.ts, this test failed with GitHub's "Cannot query field
 * \"isOutdatd\" on type \"PullRequestReviewThread\". Did you mean \"isOutdated\"?".
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { getOperationAST, parse } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FakeGitHub } from "../support/fake-github/index.ts";
import { githubQueryProblems, githubSchema } from "../support/fake-github/graphql/github-schema.ts";
import { startTarget, type PortTarget } from "./target.ts";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Files of src/ that call Octokit's `graphql`, with the operations each names. */
function graphqlSenders(): { file: string; operations: string[] }[] {
  return sourceFiles(SRC)
    .map((file) => ({ file: file.slice(SRC.length), text: readFileSync(file, "utf8") }))
    .filter(({ text }) => /\.graphql\s*(<[^()]*>)?\s*\(/.test(text))
    .map(({ file, text }) => ({ file, operations: [...text.matchAll(/\b(?:query|mutation|subscription)\s+([A-Za-z_]\w*)\s*[({]/g)].map((m) => m[1] ?? "") }));
}

interface SentQuery {
  readonly query: string;
  readonly variables: Readonly<Record<string, unknown>> | null;
  readonly operation: string | null;
}

function sentQueries(fake: FakeGitHub): SentQuery[] {
  return fake.requests
    .filter((r) => r.kind === "graphql")
    .flatMap((r) => {
      const body = typeof r.body === "object" && r.body !== null ? (r.body as Record<string, unknown>) : {};
      const query = body["query"];
      if (typeof query !== "string") return [];
      const variables = typeof body["variables"] === "object" && body["variables"] !== null ? (body["variables"] as Record<string, unknown>) : null;
      return [{ query, variables, operation: getOperationAST(parse(query))?.name?.value ?? null }];
    });
}

let t: PortTarget;
let fake: FakeGitHub;

beforeAll(async () => {
  // Always the fake: what is judged is what naruto sends, whatever answers.
  t = await startTarget({});
  if (t.fake === null) throw new Error("the port target is not the fake");
  fake = t.fake;
  await githubSchema();
}, 60_000);
afterAll(async () => {
  await t.close();
});

describe("the GraphQL queries naruto sends", () => {
  it("are all named, so each can be found on the wire", () => {
    const senders = graphqlSenders();
    expect(senders.map((s) => s.file)).toContain(join("github", "adapter-review-threads.ts"));
    for (const { file, operations } of senders) expect(operations, `${file} calls graphql without a named operation`).not.toEqual([]);
  });

  it("pass GitHub's schema as sent, variables included, every operation of src/ among them", async () => {
    const main = await t.github.getRef(`refs/heads/${t.defaultBranch}`);
    if (main === null) throw new Error("no default branch");
    const { tree } = await t.github.getCommit(main);
    const blob = await t.github.createBlob("export const r = 1;\n");
    const head = await t.github.createCommit({
      message: "reviewed",
      tree: await t.github.createTree({ entries: [{ path: "src/r.ts", mode: "100644", sha: blob }], base: tree }),
      parents: [main],
    });
    await t.github.createRef({ ref: `${t.scratch}reviewed`, sha: head });
    const { number } = await t.github.createPullRequest({
      head: `${t.scratch.slice("refs/heads/".length)}reviewed`,
      base: t.defaultBranch,
      title: "reviewed",
      body: "threads",
    });
    for (let i = 1; i <= 101; i++)
      fake.addReviewThread({ repo: "acme/demo", pull: number, path: `src/f${i}.ts`, line: 1, comments: [{ user: "octo-maintainer", body: `thread ${i}` }] });

    // Every port operation that sends GraphQL, on its paths: two pages, and a missing pull request.
    const threads = await t.github.reviewThreads({ pull: number }).catch((e: unknown) => e);
    await t.github.reviewThreads({ pull: 999_999 }).catch(() => null);
    const files = await t.github.readCommitFiles(head);
    await t.github.readCommitFiles("0".repeat(40));
    const root = await t.github.readTreeLevel(head);
    const src = await t.github.readTreeLevel(root?.folders.find((f) => f.name === "src")?.tree ?? "0".repeat(40));
    await t.github.readTreeLevel("0".repeat(40));

    const sent = sentQueries(fake);
    const problems = await Promise.all(sent.map(async (q) => ({ operation: q.operation, problems: await githubQueryProblems(q) })));
    expect(problems.filter((p) => p.problems.length > 0)).toEqual([]);
    const onTheWire = new Set(sent.map((q) => q.operation));
    for (const { operations } of graphqlSenders())
      for (const name of operations) expect(onTheWire, `${name} was never sent: drive it in this test`).toContain(name);
    expect(
      sent.some((q) => q.variables?.["after"] !== null && q.variables?.["after"] !== undefined),
      "no second page was read",
    ).toBe(true);
    expect(Array.isArray(threads) ? threads.length : threads).toBe(101);
    expect(files?.files.find((f) => f.path === "src/r.ts")?.text).toBe("export const r = 1;\n");
    expect(root?.tree).toBe((await t.github.getCommit(head)).tree);
    expect(src?.files.find((f) => f.path === "r.ts")?.text).toBe("export const r = 1;\n");
  });

  it("would be refused by GitHub's schema with a misspelt field or a variable of the wrong type", async () => {
    expect(await githubQueryProblems({ query: "query q { viewer { logn } }" })).toEqual([expect.stringContaining('Cannot query field "logn" on type "User"')]);
    const typed = 'query q($n: Int!) { repository(owner: "a", name: "b") { pullRequest(number: $n) { id } } }';
    expect(await githubQueryProblems({ query: typed, variables: { n: 1 } })).toEqual([]);
    expect(await githubQueryProblems({ query: typed, variables: { n: "one" } })).toEqual([expect.stringContaining('Variable "$n" got invalid value "one"')]);
  });
});
