import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createTestRepo } from "../../test/support/git-repo.ts";
import { readWholeTree, writeCheckpoints, writeCommits, type FileSpec } from "../../test/support/checkpoint-builder.ts";
import { createQueueBranch, integrate } from "./queue.ts";

/** Paths that are never an ancestor of one another, with the characters that break naive code. */
const POOL = ["a.txt", "dir one/b.bin", "dir one/c.sh", "d\nnewline.txt", "ü/e.md", "-dash", "sp ace.txt", 'q"uote', "deep/x/y/z.txt", "tab\there"];

type File = { readonly mode: "100644" | "100755" | "120000"; readonly content: Buffer };
type Edit = { readonly op: "keep" } | { readonly op: "delete" } | { readonly op: "rename" } | { readonly op: "write"; readonly file: File };

const fileArb: fc.Arbitrary<File> = fc.oneof(
  fc.record({ mode: fc.constantFrom("100644" as const, "100755" as const), content: fc.string({ maxLength: 30 }).map((s) => Buffer.from(s)) }),
  fc.record({ mode: fc.constant("100644" as const), content: fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b)) }),
  fc.record({ mode: fc.constant("120000" as const), content: fc.constantFrom("a.txt", "../outside", "dir one/b.bin").map((s) => Buffer.from(s)) }),
);
const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.constant({ op: "keep" as const }),
  fc.constant({ op: "delete" as const }),
  fc.constant({ op: "rename" as const }),
  fileArb.map((file) => ({ op: "write" as const, file })),
);
const perPath = <T>(arb: fc.Arbitrary<T>) => fc.array(arb, { minLength: POOL.length, maxLength: POOL.length });
const scenarioArb = fc.record({
  base: perPath(fc.option(fileArb, { nil: null })),
  edits: perPath(editArb),
  owners: perPath(fc.nat({ max: 5 })),
  checkpoints: fc.integer({ min: 1, max: 6 }),
});

const spec = (file: File): FileSpec => ({ content: file.content, mode: file.mode });

describe("integrating disjoint checkpoints (property)", () => {
  it("yields exactly the tree of applying every checkpoint's edits directly", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (s) => {
        const repo = await createTestRepo({ "README.md": "r\n" });
        try {
          const root = await repo.run("rev-parse", "HEAD");
          const baseFiles: Record<string, FileSpec> = {};
          POOL.forEach((p, i) => {
            const file = s.base[i];
            if (file) baseFiles[p] = spec(file);
          });
          const [base = ""] = await writeCommits(repo.git, repo.dir, [{ base: root, files: baseFiles }]);
          const { ref } = await createQueueBranch({ git: repo.git, repoDir: repo.dir, mission: "m-prop", base });

          const expected = new Map<string, File>([["README.md", { mode: "100644", content: Buffer.from("r\n") }]]);
          POOL.forEach((p, i) => s.base[i] && expected.set(p, s.base[i]));
          const work: Array<Record<string, FileSpec>> = Array.from({ length: s.checkpoints }, () => ({}));
          POOL.forEach((path, i) => {
            const edit = s.edits[i] ?? { op: "keep" };
            const files = work[(s.owners[i] ?? 0) % s.checkpoints] ?? {};
            const before = s.base[i];
            if (edit.op === "write") {
              files[path] = spec(edit.file);
              expected.set(path, edit.file);
            } else if (before && edit.op === "delete") {
              files[path] = null;
              expected.delete(path);
            } else if (before && edit.op === "rename") {
              files[path] = null;
              files[`renamed/${i} ${path}`] = spec(before);
              expected.delete(path);
              expected.set(`renamed/${i} ${path}`, before);
            }
          });
          const checkpoints = await writeCheckpoints(
            repo.git,
            repo.dir,
            work.map((files, c) => ({ base, item: `c${c}`, files })),
          );
          const batch = await integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints });

          expect(batch.results.map((r) => r.status)).toEqual(Array(s.checkpoints).fill("integrated"));
          expect(batch.results.every((r) => r.status === "integrated" && !r.merged)).toBe(true);
          expect(await repo.run("rev-list", "--count", `${base}..${ref}`)).toBe(String(s.checkpoints));
          const actual = await readWholeTree(repo.git, repo.dir, ref);
          const plain = (m: ReadonlyMap<string, { mode: string; content: Buffer }>) =>
            [...m].map(([p, f]) => ({ path: p, mode: f.mode, content: f.content.toString("hex") }));
          const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : 1);
          expect(plain(actual).sort(byPath)).toEqual(plain(expected).sort(byPath));
        } finally {
          await repo.remove();
        }
      }),
      { numRuns: 25 },
    );
  });
});
