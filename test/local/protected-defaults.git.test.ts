/**
 * What no item may write unless the config says so (docs/architecture.md): all of `.github/` (the
 * composite actions workflows run, not only the workflows), CODEOWNERS where GitHub reads it, and
 * every agent's start-up config. An item that may write `.` still cannot touch them; with
 * `allow_protected` it can, and the arbiter's re-check of the plan then agrees with the run.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { itemOf, runMission } from "./local-fixture.ts";

const repos: TestRepo[] = [];
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.remove()));
});

const PROTECTED: Readonly<Record<string, string>> = {
  action: ".github/actions/deploy/action.yml",
  owners: "CODEOWNERS",
  docowners: "docs/CODEOWNERS",
  claude: ".claude/settings.json",
  mcp: ".mcp.json",
  dotenv: ".env",
};

describe("protected by default", () => {
  it("refuses each path to an item that may write everything, names the rule, and integrates nothing of it", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    repos.push(repo);
    const edits = Object.fromEntries(Object.values(PROTECTED).map((path) => [path, "written by an agent\n"]));
    const m = await runMission(repo, [{ id: "all", writes: ["."], edits }], { maxAttempts: 1, sandbox: "none" });
    expect(itemOf(m, "all").status).toBe("out_of_scope");
    for (const path of Object.values(PROTECTED)) expect(itemOf(m, "all").reason, path).toContain(`${path} (protected)`);
    expect(await repo.run("rev-parse", `naruto/${m.id}`)).toBe(m.base.commit);
  });

  it("lets allow_protected override it, and the verdict then agrees with the run", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    repos.push(repo);
    const m = await runMission(repo, [{ id: "action", writes: [".github/workflows/"], edits: { ".github/workflows/ci.yml": "on: push\n" } }], {
      allowProtected: true,
      sandbox: "none",
    });
    expect(itemOf(m, "action").status).toBe("integrated");
    // As root (CI), agents without a sandbox ran as root: that finding is the only error.
    expect(m.verdict?.findings.filter((f) => f.severity === "error" && f.rule !== "agents_as_root")).toEqual([]);
    expect(m.verdict?.verdict).not.toBe("block");
  });
});
