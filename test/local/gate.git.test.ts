/**
 * The gate on a local run (docs/architecture.md): agents that leave, inside their own writes, what git
 * must never take from them — a planted git directory, `.git` spelled so some file system reads
 * it as `.git`, a `.gitattributes` or `.gitmodules`, a gitlink they staged or committed or a
 * nested repository, a file GitHub would refuse. Each such item ends `out_of_scope` with the path
 * and the rule; an honest item beside them integrates, and nothing refused reaches the queue.
 *
 * Against the code before the gate, every row here failed: the planted `.git` folder was dropped
 * without a word (the item integrated or reported "no changes"), `.GIT`, `git~1` and `.git. `
 * made naruto's `git add -A` fail (the attempt failed with a git error), the HFS+ spelling, the
 * `.gitattributes`, the `.gitmodules`, the nested repository and the 101 MiB file were integrated,
 * and a staged gitlink was dropped (the item reported "no changes").
 *
 * Names with a `/` inside, `..` entries and duplicate names cannot be made through a file system;
 * the Action path's tests (test/action/gate-recheck.git.test.ts) forge them in bundles.
 */
import { afterEach, describe, expect, it } from "vitest";
import { shellQuote } from "../../src/agent/shell-quote.ts";
import type { Mission } from "../../src/mission/document.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { itemOf, queueFiles, runMission, type ItemSpec } from "./local-fixture.ts";

let repo: TestRepo;
afterEach(async () => repo?.remove());

const SUB = "0123456789abcdef0123456789abcdef01234567";
const COMMIT = "git -c user.name=agent -c user.email=agent@example.test commit -qm 'agent commits'";

/** Each row: an item of its own (writes `src/<id>/`), the agent's shell command, and the refusal. */
const HOSTILE: readonly [id: string, command: string, refusal: string][] = [
  [
    "planted",
    "mkdir -p src/planted/sub/.git && printf '[core]\\n\\thooksPath = /tmp\\n' > src/planted/sub/.git/config && echo ok > src/planted/ok.txt",
    "src/planted/sub/.git (dotgit)",
  ],
  ["upper", "mkdir -p src/upper/.GIT/hooks && printf '#!/bin/sh\\n' > src/upper/.GIT/hooks/post-checkout", "src/upper/.GIT (dotgit)"],
  ["short", "mkdir -p src/short/git~1 && echo x > src/short/git~1/config", "src/short/git~1 (dotgit)"],
  ["trailing", "mkdir -p 'src/trailing/.git. ' && echo x > 'src/trailing/.git. /config'", "src/trailing/.git.  (dotgit)"],
  ["hfs", "mkdir -p \"src/hfs/.g$(printf '\\342\\200\\214')it\" && echo x > \"src/hfs/.g$(printf '\\342\\200\\214')it/config\"", "src/hfs/.g\u200cit (dotgit)"],
  ["attrs", "mkdir -p src/attrs/x && echo '* filter=evil' > src/attrs/x/.gitattributes", "src/attrs/x/.gitattributes (gitattributes)"],
  [
    "modules",
    "mkdir -p src/modules && printf '[submodule \"x\"]\\n\\tpath = x\\n\\turl = https://example.test/x\\n' > src/modules/.gitmodules",
    "src/modules/.gitmodules (gitmodules)",
  ],
  ["staged", `git update-index --add --cacheinfo 160000,${SUB},src/staged/sub`, "src/staged/sub (gitlink)"],
  ["committed", `git update-index --add --cacheinfo 160000,${SUB},src/committed/sub && ${COMMIT}`, "src/committed/sub (gitlink)"],
  [
    "nested",
    "git init -q src/nested/lib && git -C src/nested/lib -c user.name=a -c user.email=a@example.test commit -q --allow-empty -m lib",
    "src/nested/lib/.git (dotgit)",
  ],
  ["huge", "mkdir -p src/huge && dd if=/dev/zero of=src/huge/big.bin bs=1048576 count=101 status=none", "src/huge/big.bin (file_too_large)"],
];

const reasonOf = (m: Mission, id: string) => itemOf(m, id).reason ?? "";

describe("the gate on a local run refuses, by path and rule, what git must not take", () => {
  it("refuses each hostile item and integrates the honest one", async () => {
    repo = await createTestRepo({ "README.md": "# app\n", "src/keep.txt": "keep\n" });
    const items: ItemSpec[] = [...HOSTILE.map(([id]) => ({ id, agent: id })), { id: "honest" }];
    const m = await runMission(repo, items, { agents: Object.fromEntries(HOSTILE.map(([id, command]) => [id, command])), maxAttempts: 1, maxParallel: 4 });

    for (const [id, , refusal] of HOSTILE) {
      expect(itemOf(m, id).status, `${id}: ${reasonOf(m, id)}`).toBe("out_of_scope");
      expect(reasonOf(m, id), id).toContain(refusal);
    }
    expect(itemOf(m, "honest").status).toBe("integrated");
    const files = await queueFiles(repo, m);
    expect(Object.keys(files).sort()).toEqual(["README.md", "src/honest/honest.txt", "src/keep.txt"]);
    expect(await repo.run("ls-tree", "-r", `refs/heads/${m.queue.branch}`)).not.toMatch(/^160000/m);
  });
});

/**
 * A replay of a real submodule addition: date-fns's commit dc4b0599 ("Add missing floor to
 * conversion functions", 2021) added the `deno` gitlink below, by accident. Here the agent applies
 * that gitlink, with a `.gitmodules` for it and an edit of its own, with `git apply --index`: the
 * gitlink is only in its index (on disk, `deno/` is an empty folder).
 */
const DENO = "e5bc4fec20722aae2cc133284fdcc17ad366a95c";
const PATCH = `diff --git a/.gitmodules b/.gitmodules
new file mode 100644
--- /dev/null
+++ b/.gitmodules
@@ -0,0 +1,3 @@
+[submodule "deno"]
+\tpath = deno
+\turl = https://github.com/denoland/deno_std.git
diff --git a/deno b/deno
new file mode 160000
index 000000000..e5bc4fec2
--- /dev/null
+++ b/deno
@@ -0,0 +1 @@
+Subproject commit ${DENO}
diff --git a/src/hours.ts b/src/hours.ts
--- a/src/hours.ts
+++ b/src/hours.ts
@@ -1 +1 @@
-export const hoursToMilliseconds = (hours: number) => hours * 3_600_000;
+export const hoursToMilliseconds = (hours: number) => Math.floor(hours * 3_600_000);
`;

describe("a submodule staged by git apply --index", () => {
  const item: ItemSpec = { id: "deno", agent: "replay", writes: [".gitmodules", "deno", "src/hours.ts"] };
  const agents = { replay: `printf '%s' ${shellQuote(PATCH)} | git apply --index` };
  const start = () =>
    createTestRepo({ "README.md": "# date-fns\n", "src/hours.ts": "export const hoursToMilliseconds = (hours: number) => hours * 3_600_000;\n" });

  it("ends with the gitlink on the queue, exactly, when config allows submodules", async () => {
    repo = await start();
    const m = await runMission(repo, [item], { agents, maxAttempts: 1, allow: ["submodules"] });
    expect(itemOf(m, "deno").status, reasonOf(m, "deno")).toBe("integrated");
    const queue = `refs/heads/${m.queue.branch}`;
    expect(await repo.run("ls-tree", queue, "deno")).toBe(`160000 commit ${DENO}\tdeno`);
    expect(await repo.run("show", `${queue}:.gitmodules`)).toContain('[submodule "deno"]');
    expect(await repo.run("show", `${queue}:src/hours.ts`)).toContain("Math.floor");
  });

  it("is refused by name when config does not allow submodules", async () => {
    repo = await start();
    const m = await runMission(repo, [item], { agents, maxAttempts: 1 });
    expect(itemOf(m, "deno").status).toBe("out_of_scope");
    expect(reasonOf(m, "deno")).toMatch(/\.gitmodules \(gitmodules\).*deno \(gitlink\)|deno \(gitlink\).*\.gitmodules \(gitmodules\)/);
  });

  it("a gitlink alone is a change, not 'no changes'", async () => {
    repo = await start();
    const only: ItemSpec = { id: "deno", agent: "stage", writes: ["deno"] };
    const m = await runMission(repo, [only], {
      agents: { stage: `git update-index --add --cacheinfo 160000,${DENO},deno` },
      maxAttempts: 1,
      allow: ["submodules"],
    });
    expect(itemOf(m, "deno").status, reasonOf(m, "deno")).toBe("integrated");
    expect(await repo.run("ls-tree", `refs/heads/${m.queue.branch}`, "deno")).toBe(`160000 commit ${DENO}\tdeno`);
  });
});
