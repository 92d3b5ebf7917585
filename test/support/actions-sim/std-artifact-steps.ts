/**
 * actions/upload-artifact@v6 and actions/download-artifact@v7 over the fake GitHub, the way the
 * real ones talk to GitHub:
 *
 * - upload (`name`, `path`, `if-no-files-found`, `include-hidden-files`, `overwrite`): the zip
 *   goes to the Actions results service with the job's `ACTIONS_RUNTIME_TOKEN` (not an API
 *   call); outputs `artifact-id` and `artifact-digest`.
 * - download (`name`, `path`, `pattern`, `merge-multiple`, `run-id`, `github-token`): without
 *   `github-token`, this run's artifacts through the results service (no API call); with it,
 *   the run `run-id` through the REST API as @actions/artifact does — one call per page of the
 *   run's artifacts, one per artifact downloaded — so a token without `actions: read` fails and
 *   every call counts against the rate limit.
 */
import { resolve } from "node:path";
import { ZipFormatError } from "../../../src/action/artifact-zip.ts";
import { ArtifactError, extractArtifact, zipForUpload } from "./artifacts.ts";
import type { StepContext, StepOutcome } from "./types.ts";

function lines(value: string | undefined): string[] {
  return (value ?? "")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replaceAll("*", ".*")
    .replaceAll("?", ".");
  return new RegExp(`^${body}$`);
}

const failed = (message: string): StepOutcome => ({ ok: false, log: `::error::${message}\n` });

export async function runUpload(ctx: StepContext, inputs: Readonly<Record<string, string>>): Promise<StepOutcome> {
  const name = inputs["name"] || "artifact";
  const paths = lines(inputs["path"]);
  if (paths.some((p) => /[*?[]/.test(p))) return { ok: false, log: "the simulator's upload-artifact takes plain paths, not globs\n" };
  if (paths.length === 0) return { ok: false, log: "Input required and not supplied: path\n" };
  const mode = inputs["if-no-files-found"] || "warn";
  const packed = await zipForUpload({
    paths: paths.map((p) => resolve(ctx.workspace, p)),
    includeHidden: (inputs["include-hidden-files"] || "false").toLowerCase() === "true",
    within: ctx.jobDir,
  });
  if (packed === null) {
    const message = `No files were found with the provided path: ${paths.join(", ")}. No artifacts will be uploaded.`;
    if (mode === "error") return failed(message);
    return { ok: true, log: mode === "warn" ? `::warning::${message}\n` : `${message}\n` };
  }
  const overwrite = (inputs["overwrite"] || "false").toLowerCase() === "true";
  const answer = await fetch(`${ctx.runtime.resultsUrl}artifacts?name=${encodeURIComponent(name)}${overwrite ? "&overwrite=true" : ""}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ctx.runtime.token}`, "content-type": "application/zip" },
    body: new Uint8Array(packed.zip),
  });
  const body = (await answer.json()) as { id?: number; digest?: string; msg?: string };
  if (answer.status !== 201) return failed(body.msg ?? `the results service answered ${answer.status}`);
  return {
    ok: true,
    log: `Artifact ${name} has been successfully uploaded! Final size is ${packed.zip.length} bytes (${packed.files.length} file(s)). Artifact ID is ${body.id ?? "?"}\n`,
    outputs: { "artifact-id": String(body.id ?? ""), "artifact-digest": (body.digest ?? "").replace(/^sha256:/, "") },
  };
}

interface Listed {
  readonly id: number;
  readonly name: string;
}

/** The artifacts a download reads, and how to fetch each zip: this run's, or another's over REST. */
function source(ctx: StepContext, token: string, runId: number) {
  if (token === "") {
    const auth = { authorization: `Bearer ${ctx.runtime.token}` };
    return {
      list: async (name: string | undefined): Promise<Listed[]> => {
        const answer = await fetch(`${ctx.runtime.resultsUrl}artifacts${name === undefined ? "" : `?name=${encodeURIComponent(name)}`}`, { headers: auth });
        if (!answer.ok) throw new ArtifactError(`Unable to download artifact(s): Failed to ListArtifacts: (${answer.status})`);
        return ((await answer.json()) as { artifacts: Listed[] }).artifacts;
      },
      zip: async (a: Listed): Promise<Uint8Array> => {
        const answer = await fetch(`${ctx.runtime.resultsUrl}artifacts/${a.id}`, { headers: auth });
        if (!answer.ok) throw new ArtifactError(`Unable to download artifact ${a.name}: (${answer.status})`);
        return new Uint8Array(await answer.arrayBuffer());
      },
    };
  }
  const api = `${ctx.env["GITHUB_API_URL"] ?? ""}/repos/${ctx.github.repository}/actions`;
  const headers = { authorization: `Bearer ${token}`, accept: "application/vnd.github+json" };
  return {
    list: async (name: string | undefined): Promise<Listed[]> => {
      const found: Listed[] = [];
      for (let page = 1; ; page++) {
        const answer = await fetch(`${api}/runs/${runId}/artifacts?per_page=100&page=${page}${name === undefined ? "" : `&name=${encodeURIComponent(name)}`}`, {
          headers,
        });
        if (!answer.ok) {
          await answer.body?.cancel();
          throw new ArtifactError(
            `Unable to download artifact(s): Failed to ListArtifacts: Received non-retryable error: Failed request: (${answer.status}) ${answer.statusText}`,
          );
        }
        const body = (await answer.json()) as { total_count: number; artifacts: Listed[] };
        found.push(...body.artifacts);
        if (body.artifacts.length < 100 || found.length >= body.total_count) return found;
      }
    },
    zip: async (a: Listed): Promise<Uint8Array> => {
      const answer = await fetch(`${api}/artifacts/${a.id}/zip`, { headers });
      if (!answer.ok) throw new ArtifactError(`Unable to download artifact ${a.name}: (${answer.status}) ${answer.statusText}`);
      return new Uint8Array(await answer.arrayBuffer());
    },
  };
}

export async function runDownload(ctx: StepContext, inputs: Readonly<Record<string, string>>): Promise<StepOutcome> {
  const into = resolve(ctx.workspace, inputs["path"] || ".");
  const name = inputs["name"] || undefined;
  const pattern = inputs["pattern"] ? globToRegExp(inputs["pattern"]) : null;
  const merge = (inputs["merge-multiple"] || "false").toLowerCase() === "true";
  // v4 and later: `run-id` counts only with `github-token`; without one, this run's artifacts.
  const token = inputs["github-token"] || "";
  const runId = token === "" ? ctx.runId : Number(inputs["run-id"] || ctx.runId);
  if (!Number.isSafeInteger(runId) || runId <= 0) return failed(`Invalid run-id: ${inputs["run-id"] ?? ""}`);
  const from = source(ctx, token, runId);
  try {
    let chosen: Listed[];
    if (name !== undefined) {
      chosen = (await from.list(name)).filter((a) => a.name === name).slice(0, 1);
      if (chosen.length === 0) throw new ArtifactError(`Unable to download artifact(s): Artifact not found for name: ${name}`);
    } else {
      chosen = (await from.list(undefined)).filter((a) => pattern === null || pattern.test(a.name));
    }
    const downloaded: string[] = [];
    for (const artifact of chosen) {
      const target = name !== undefined || merge ? into : resolve(into, artifact.name);
      await extractArtifact(await from.zip(artifact), target);
      downloaded.push(artifact.name);
    }
    // Nothing downloaded (a run without artifacts): v4 and later say so and succeed, making no folder.
    if (downloaded.length > 0) await ctx.chown(into);
    return { ok: true, log: `Downloaded ${downloaded.length} artifact(s): ${downloaded.join(", ")}\n`, outputs: { "download-path": into } };
  } catch (error) {
    if (error instanceof ArtifactError) return failed(error.message);
    if (error instanceof ZipFormatError) return failed(`Unable to download and extract artifact: ${error.message}`);
    throw error;
  }
}
