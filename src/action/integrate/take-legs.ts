/**
 * Takes the legs of one work run that ended, for the queue job and for publish (issue 32): reads
 * the run's jobs and artifacts from GitHub (two calls), binds each leg to its own artifact
 * (legs.ts), and unpacks each such artifact through the artifact checks into `<folder>/<name>/`.
 * The zip comes from GitHub (one call per leg), or — for publish — from the queue job's hand-on
 * when its SHA-256 is the digest GitHub lists for that artifact: the same bytes, without the call.
 * A leg whose own artifact is refused ends failed with the reason; every artifact that is not its
 * leg's work is reported as a forgery, by name.
 */
import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import { constants } from "node:fs";
import { join } from "node:path";
import type { GitHubPort } from "../../github/index.ts";
import type { DispatchInput } from "../../github-driver/index.ts";
import type { Mission } from "../../mission/index.ts";
import { unpackArtifact, writeUnpacked } from "../artifact-checks.ts";
import { ARTIFACT_SPECS, MAX_WORK_ZIP_BYTES } from "../artifacts.ts";
import { legsInFlight, viewLegs, type Forgery, type LegJob } from "./legs.ts";

/** A leg whose own artifact passed the checks: unpacked into `folder/<artifact>/`. */
export interface TakenLeg {
  readonly item: string;
  readonly attempt: number;
  readonly artifact: string;
  readonly job: LegJob;
  /** The zip as GitHub holds it (what the queue job hands on to publish). */
  readonly zip: Uint8Array;
}

/** A leg that ended without a result naruto takes: its attempt fails with `reason`. */
export interface FailedLeg {
  readonly item: string;
  readonly attempt: number;
  readonly reason: string;
  readonly job: LegJob;
}

export interface Legs {
  readonly runId: number;
  readonly taken: readonly TakenLeg[];
  readonly failed: readonly FailedLeg[];
  readonly forgeries: readonly Forgery[];
  /** Legs still at work. */
  readonly working: number;
}

export interface TakeLegsInput {
  readonly github: Pick<GitHubPort, "listJobs" | "listRunArtifacts" | "downloadArtifact">;
  readonly mission: Mission;
  readonly runId: number;
  readonly dispatched: readonly { readonly item: string; readonly attempt: number }[] | null;
  /** Where to unpack: each taken leg into `<folder>/<artifact name>/`. */
  readonly folder: string;
  /** A folder of zips the queue job handed on (`<artifact name>.zip`), used only when their digest is GitHub's. */
  readonly forwarded?: string;
}

/** The work run whose legs a run takes: an integrate run's `run`, or a work run itself; null for the others. */
export function workRunOf(dispatch: DispatchInput, run: { readonly id: number } | null): number | null {
  if (dispatch.phase === "integrate") return dispatch.run ?? null;
  if (dispatch.phase === "work" && dispatch.items.length > 0) return run?.id ?? null;
  return null;
}

export async function takeLegs(input: TakeLegsInput): Promise<Legs> {
  // No leg of the run in flight: nothing to take, and nothing to ask GitHub.
  if (legsInFlight(input).length === 0) return { runId: input.runId, taken: [], failed: [], forgeries: [], working: 0 };
  const [jobs, artifacts] = await Promise.all([input.github.listJobs({ runId: input.runId }), input.github.listRunArtifacts({ runId: input.runId })]);
  const { legs, forgeries } = viewLegs({ mission: input.mission, runId: input.runId, dispatched: input.dispatched, jobs, artifacts });
  const taken: TakenLeg[] = [];
  const failed: FailedLeg[] = [];
  const refused: Forgery[] = [...forgeries];
  let working = 0;
  for (const leg of legs) {
    if (leg.kind === "working") {
      working++;
      continue;
    }
    if (leg.kind === "missing") {
      failed.push({ item: leg.item, attempt: leg.attempt, reason: leg.reason, job: leg.job });
      continue;
    }
    const { artifact } = leg;
    const fail = (why: string) => {
      // Its own job's upload step sent it, and it is not what naruto's work step writes: the attempt fails.
      failed.push({ item: leg.item, attempt: leg.attempt, reason: `its artifact ${artifact.name} was refused: ${why}`, job: leg.job });
      refused.push({ artifact, runId: input.runId, reason: why });
    };
    if (artifact.sizeInBytes > MAX_WORK_ZIP_BYTES) {
      fail(`it is larger than ${MAX_WORK_ZIP_BYTES} bytes`);
      continue;
    }
    const zip = (await forwardedZip(input.forwarded, artifact.name, artifact.digest)) ?? (await input.github.downloadArtifact({ artifactId: artifact.id }));
    if (artifact.digest !== null && digestOf(zip) !== artifact.digest) {
      fail(`its zip is not the one GitHub lists (${artifact.digest})`);
      continue;
    }
    const unpacked = unpackArtifact(zip, ARTIFACT_SPECS.work);
    if (unpacked.kind === "refused") {
      fail(unpacked.reason);
      continue;
    }
    await writeUnpacked(join(input.folder, artifact.name), unpacked.files);
    taken.push({ item: leg.item, attempt: leg.attempt, artifact: artifact.name, job: leg.job, zip });
  }
  return { runId: input.runId, taken, failed, forgeries: refused, working };
}

function digestOf(zip: Uint8Array): string {
  return `sha256:${createHash("sha256").update(zip).digest("hex")}`;
}

/** The queue job's copy of an artifact, when it is byte for byte the one GitHub lists; else null. */
async function forwardedZip(folder: string | undefined, name: string, digest: string | null): Promise<Uint8Array | null> {
  if (folder === undefined || digest === null) return null;
  const handle = await open(join(folder, `${name}.zip`), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (handle === null) return null;
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > MAX_WORK_ZIP_BYTES) return null;
    const zip = await handle.readFile();
    return digestOf(zip) === digest ? zip : null;
  } finally {
    await handle.close();
  }
}
