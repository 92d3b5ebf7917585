import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunArtifact, WorkflowJob } from "../../github/index.ts";
import type { MissionEvent } from "../../mission/index.ts";
import { at as minutes, item, missionAfter, planned, requested } from "../../../test/support/mission-builders.ts";
import { writeZip } from "../../../test/support/zip.ts";
import { UPLOAD_STEP } from "./legs.ts";
import { takeLegs } from "./take-legs.ts";

const RUN = 41;
const started = (id: string): MissionEvent => ({ type: "attempt_started", at: minutes(2), item: id, attempt: 1, base: "b".repeat(40), runner: `run ${RUN}` });
const mission = missionAfter([requested(), planned([item("a"), item("b")]), started("a"), started("b")]);
const time = (s: number) => `2026-12-01T12:00:${String(s).padStart(2, "0")}Z`;
const digest = (zip: Buffer) => `sha256:${createHash("sha256").update(zip).digest("hex")}`;

const job = (id: string): WorkflowJob => ({
  id: id.charCodeAt(0),
  name: `work m-test1 ${id}#1`,
  status: "completed",
  conclusion: "success",
  url: null,
  startedAt: time(0),
  completedAt: time(30),
  runAttempt: 1,
  steps: [{ number: 5, name: UPLOAD_STEP, status: "completed", conclusion: "success", startedAt: time(10), completedAt: time(12) }],
});

/** A port answering the run's jobs and artifacts, counting downloads. */
function github(zips: Record<string, Buffer>, listed: Record<string, string | null> = {}) {
  const downloads: number[] = [];
  const artifacts: RunArtifact[] = Object.entries(zips).map(([name, zip], i) => ({
    id: i + 1,
    name,
    sizeInBytes: zip.length,
    digest: name in listed ? (listed[name] ?? null) : digest(zip),
    createdAt: time(11),
    expired: false,
    runId: RUN,
  }));
  return {
    downloads,
    port: {
      listJobs: async () => [job("a"), job("b")],
      listRunArtifacts: async () => artifacts,
      downloadArtifact: async ({ artifactId }: { artifactId: number }) => {
        downloads.push(artifactId);
        const found = artifacts.find((x) => x.id === artifactId);
        return zips[found?.name ?? ""] ?? Buffer.alloc(0);
      },
    },
  };
}

const good = writeZip([
  { name: "result.json", data: "{}\n" },
  { name: "checkpoint.bundle", data: "bundle" },
]);

describe("takeLegs", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "naruto-take-legs-"));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it("unpacks each leg's own artifact, downloading only what the queue job did not hand on byte for byte", async () => {
    const forwarded = join(dir, "forwarded");
    await rm(forwarded, { recursive: true, force: true });
    await mkdir(forwarded);
    await writeFile(join(forwarded, "naruto-work-a-1.zip"), good);
    await writeFile(join(forwarded, "naruto-work-b-1.zip"), writeZip([{ name: "result.json", data: "forged" }]));
    const gh = github({ "naruto-work-a-1": good, "naruto-work-b-1": good });
    const legs = await takeLegs({ github: gh.port, mission, runId: RUN, dispatched: null, folder: join(dir, "legs"), forwarded });
    expect(legs.taken.map((t) => t.artifact)).toEqual(["naruto-work-a-1", "naruto-work-b-1"]);
    // a's copy is GitHub's bytes; b's is not, so b's came from GitHub.
    expect(gh.downloads).toEqual([2]);
    expect(await readFile(join(dir, "legs", "naruto-work-b-1", "result.json"), "utf8")).toBe("{}\n");
  });

  it("fails the attempt of a leg whose own artifact is refused, and names it; a zip that is not the listed one is refused", async () => {
    const bad = writeZip([
      { name: "result.json", data: "{}\n" },
      { name: "../x", data: "x" },
    ]);
    const gh = github({ "naruto-work-a-1": bad, "naruto-work-b-1": good }, { "naruto-work-b-1": `sha256:${"0".repeat(64)}` });
    const legs = await takeLegs({ github: gh.port, mission, runId: RUN, dispatched: null, folder: join(dir, "legs2") });
    expect(legs.taken).toEqual([]);
    expect(legs.failed.map((f) => [f.item, f.reason])).toEqual([
      ["a", 'its artifact naruto-work-a-1 was refused: entry "../x" leaves the artifact\'s folder'],
      ["b", `its artifact naruto-work-b-1 was refused: its zip is not the one GitHub lists (sha256:${"0".repeat(64)})`],
    ]);
    expect(legs.forgeries.map((f) => f.artifact.name)).toEqual(["naruto-work-a-1", "naruto-work-b-1"]);
  });

  it("asks GitHub nothing when no leg of the run is in flight", async () => {
    const legs = await takeLegs({
      github: {
        listJobs: () => Promise.reject(new Error("asked")),
        listRunArtifacts: () => Promise.reject(new Error("asked")),
        downloadArtifact: () => Promise.reject(new Error("asked")),
      },
      mission,
      runId: 7,
      dispatched: null,
      folder: join(dir, "legs3"),
    });
    expect(legs).toMatchObject({ taken: [], failed: [], forgeries: [] });
  });
});
