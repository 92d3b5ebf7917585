/**
 * Workflow run artifacts as GitHub keeps them: zips, per run, by name (a second upload of a name
 * fails with 409 unless it overwrites, which deletes the old one first), each with an id, a size,
 * the SHA-256 digest of its zip, and its times. Uploads come through the Actions results service
 * (results-service.ts) with a job's `ACTIONS_RUNTIME_TOKEN`: whoever holds that token can upload
 * any name into the job's run while the job runs, which is what GitHub allows too. Which job
 * uploaded an artifact is kept for tests only; GitHub's API does not say.
 */
import { createHash, randomBytes } from "node:crypto";
import type { RepoState, World } from "./state.ts";

export interface ArtifactState {
  readonly id: number;
  readonly name: string;
  readonly runId: number;
  /** The job whose runtime token uploaded it (not shown by the API). */
  readonly jobId: number | null;
  readonly zip: Buffer;
  /** `sha256:<hex>` of the zip, as upload-artifact v4 reports it. */
  readonly digest: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** What a job's `ACTIONS_RUNTIME_TOKEN` may do: upload to and read the artifacts of its own run. */
export interface RuntimeGrant {
  readonly repo: string;
  readonly runId: number;
  readonly jobId: number | null;
}

/** An upload GitHub refuses; `status` is the results service's answer. */
export class ArtifactConflictError extends Error {
  override readonly name = "ArtifactConflictError";
}

const RETENTION_MS = 90 * 24 * 3600 * 1000;
const VALID_NAME = /^[^"<>:|*?\\/\r\n]+$/;

export function artifactsOfRun(repo: RepoState, runId: number): ArtifactState[] {
  return [...repo.artifacts.values()].filter((a) => a.runId === runId).sort((a, b) => a.id - b.id);
}

/** Stores `zip` as artifact `name` of the grant's run; 409 for a name the run has, unless `overwrite`. */
export function storeArtifact(world: World, repo: RepoState, input: { grant: RuntimeGrant; name: string; zip: Buffer; overwrite: boolean }): ArtifactState {
  if (!VALID_NAME.test(input.name)) throw new ArtifactConflictError(`The artifact name is not valid: ${input.name}. Contains a character that is not allowed`);
  const existing = artifactsOfRun(repo, input.grant.runId).find((a) => a.name === input.name);
  if (existing !== undefined) {
    if (!input.overwrite)
      throw new ArtifactConflictError(
        "Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: an artifact with this name already exists on the workflow run",
      );
    repo.artifacts.delete(existing.id);
  }
  const now = world.now();
  const artifact: ArtifactState = {
    id: world.nextId(),
    name: input.name,
    runId: input.grant.runId,
    jobId: input.grant.jobId,
    zip: input.zip,
    digest: `sha256:${createHash("sha256").update(input.zip).digest("hex")}`,
    createdAt: now,
    expiresAt: now + RETENTION_MS,
  };
  repo.artifacts.set(artifact.id, artifact);
  return artifact;
}

/**
 * Signed, short-lived download URLs (GitHub's are Azure blob URLs): no token goes with them, and
 * they are not API calls.
 */
export interface BlobLinks {
  /** A key for the link `/_blobs/<key>`, good for a minute. */
  sign(repo: RepoState, artifact: ArtifactState): string;
  /** The artifact behind a key that has not expired, while it exists. */
  open(key: string): ArtifactState | null;
}

export function createBlobLinks(now: () => number): BlobLinks {
  const links = new Map<string, { readonly repo: RepoState; readonly id: number; readonly expiresAt: number }>();
  return {
    sign(repo, artifact) {
      const key = randomBytes(18).toString("base64url");
      links.set(key, { repo, id: artifact.id, expiresAt: now() + 60_000 });
      return key;
    },
    open(key) {
      const link = links.get(key);
      if (link === undefined || now() > link.expiresAt) return null;
      return link.repo.artifacts.get(link.id) ?? null;
    },
  };
}
