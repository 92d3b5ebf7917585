/**
 * The Actions results service, the part of it artifacts use, and the blob links artifacts are
 * downloaded from. These are not REST API calls (GitHub's rate limit does not count them) and not
 * in GitHub's OpenAPI description: the real service speaks Twirp to `ACTIONS_RESULTS_URL` and
 * stores zips in Azure blobs. The shape here is the simulator's own, smaller one; what it keeps
 * of GitHub's is who may do what:
 *
 * - `POST /_actions/results/artifacts?name=N[&overwrite=true]` with a zip body and a job's
 *   `ACTIONS_RUNTIME_TOKEN` as bearer: uploads to that job's run, whatever process sends it;
 *   409 when the run has the name (unless overwriting), 401 for a token that is unknown or whose
 *   job has ended.
 * - `GET /_actions/results/artifacts[?name=N]` and `GET /_actions/results/artifacts/<id>`: the
 *   run's own artifacts with the same token (download-artifact without `github-token`).
 * - `GET /_blobs/<key>`: a signed link from the REST download (no token; expires in a minute).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ArtifactConflictError, artifactsOfRun, storeArtifact, type ArtifactState } from "./artifacts.ts";
import type { RepoState, World } from "./state.ts";
import { isoTime } from "./state.ts";

export const RESULTS_PATH = /^\/_actions\/results\/artifacts(?:\/(\d+))?$/;
export const BLOB_PATH = /^\/_blobs\/([A-Za-z0-9_-]+)$/;

/** The largest zip the fake takes (GitHub's limit is far higher; tests never need more). */
const MAX_UPLOAD = 64 * 1024 * 1024;

function json(res: ServerResponse, status: number, body: unknown): number {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  return status;
}

function listed(a: ArtifactState): Record<string, unknown> {
  return { id: a.id, name: a.name, size: a.zip.length, digest: a.digest, created_at: isoTime(a.createdAt) };
}

async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_UPLOAD) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Serves one request of the results service or a blob link; returns the status sent. */
export async function serveArtifactService(input: { world: World; req: IncomingMessage; res: ServerResponse; url: URL; method: string }): Promise<number> {
  const { world, req, res, url, method } = input;
  const blob = BLOB_PATH.exec(url.pathname);
  if (blob !== null) {
    req.resume();
    const artifact = method === "GET" ? world.blobs.open(blob[1] ?? "") : null;
    if (artifact === null) return json(res, 404, { message: "BlobNotFound" });
    res.writeHead(200, { "content-type": "application/zip", "content-length": String(artifact.zip.length) }).end(artifact.zip);
    return 200;
  }
  const match = RESULTS_PATH.exec(url.pathname);
  const header = req.headers.authorization ?? "";
  const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1] ?? "";
  const grant = world.runtimeTokens.get(token);
  const repo: RepoState | undefined = grant === undefined ? undefined : world.repos.get(grant.repo.toLowerCase());
  if (match === null || grant === undefined || repo === undefined) {
    req.resume();
    return json(res, match === null ? 404 : 401, {
      msg: match === null ? "not found" : "the runtime token is not valid (its job has ended, or it never was one)",
    });
  }
  if (method === "POST" && match[1] === undefined) {
    const name = url.searchParams.get("name") ?? "";
    const body = await readBody(req);
    if (body === null) return json(res, 413, { msg: "the artifact is too large for the fake" });
    try {
      const stored = storeArtifact(world, repo, { grant, name, zip: body, overwrite: url.searchParams.get("overwrite") === "true" });
      return json(res, 201, listed(stored));
    } catch (error) {
      if (error instanceof ArtifactConflictError) return json(res, error.message.includes("(409)") ? 409 : 400, { msg: error.message });
      throw error;
    }
  }
  req.resume();
  if (method !== "GET") return json(res, 405, { msg: "method not allowed" });
  const own = artifactsOfRun(repo, grant.runId);
  if (match[1] === undefined) {
    const name = url.searchParams.get("name");
    return json(res, 200, { artifacts: own.filter((a) => name === null || a.name === name).map(listed) });
  }
  const artifact = own.find((a) => a.id === Number(match[1]));
  if (artifact === undefined) return json(res, 404, { msg: "artifact not found in this run" });
  res.writeHead(200, { "content-type": "application/zip", "content-length": String(artifact.zip.length) }).end(artifact.zip);
  return 200;
}
