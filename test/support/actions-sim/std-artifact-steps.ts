/**
 * actions/upload-artifact@v4 and actions/download-artifact@v4 over the simulator's artifact
 * store: the inputs the template uses (`name`, `path`, `if-no-files-found`,
 * `include-hidden-files`; `name`, `path`, `pattern`, `merge-multiple`, `run-id`, `github-token`)
 * with the v4 behaviour. A download from another run (`github-token` given) asks the fake GitHub
 * about that run with the token, so a token without `actions: read` fails as on GitHub.
 */
import { resolve } from "node:path";
import { ArtifactError } from "./artifacts.ts";
import type { StepContext, StepOutcome } from "./types.ts";

function lines(value: string | undefined): string[] {
  return (value ?? "")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}

function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*").replaceAll("?", ".");
  return new RegExp(`^${body}$`);
}

export async function runUpload(ctx: StepContext, inputs: Readonly<Record<string, string>>): Promise<StepOutcome> {
  const name = inputs["name"] || "artifact";
  const paths = lines(inputs["path"]);
  if (paths.some((p) => /[*?[]/.test(p))) return { ok: false, log: "the simulator's upload-artifact takes plain paths, not globs\n" };
  if (paths.length === 0) return { ok: false, log: "Input required and not supplied: path\n" };
  const mode = inputs["if-no-files-found"] || "warn";
  try {
    const files = await ctx.artifacts.upload({
      runId: ctx.runId,
      name,
      paths: paths.map((p) => resolve(ctx.workspace, p)),
      includeHidden: (inputs["include-hidden-files"] || "false").toLowerCase() === "true",
      within: ctx.jobDir,
    });
    if (files.length === 0) {
      const message = `No files were found with the provided path: ${paths.join(", ")}. No artifacts will be uploaded.`;
      if (mode === "error") return { ok: false, log: `::error::${message}\n` };
      return { ok: true, log: mode === "warn" ? `::warning::${message}\n` : `${message}\n` };
    }
    return { ok: true, log: `Artifact ${name} has been successfully uploaded: ${files.length} file(s)\n`, outputs: { "artifact-id": `${ctx.runId}-${name}` } };
  } catch (error) {
    if (error instanceof ArtifactError) return { ok: false, log: `::error::${error.message}\n` };
    throw error;
  }
}

export async function runDownload(ctx: StepContext, inputs: Readonly<Record<string, string>>): Promise<StepOutcome> {
  const into = resolve(ctx.workspace, inputs["path"] || ".");
  const name = inputs["name"] || undefined;
  const pattern = inputs["pattern"] ? globToRegExp(inputs["pattern"]) : null;
  const merge = (inputs["merge-multiple"] || "false").toLowerCase() === "true";
  // v4: `run-id` counts only with `github-token`; without one, this run's artifacts.
  const token = inputs["github-token"] || "";
  let runId = ctx.runId;
  if (token !== "") {
    runId = Number(inputs["run-id"] || ctx.runId);
    if (!Number.isSafeInteger(runId) || runId <= 0) return { ok: false, log: `::error::Invalid run-id: ${inputs["run-id"] ?? ""}
` };
    const api = ctx.env["GITHUB_API_URL"];
    const answer = await fetch(`${api}/repos/${ctx.github.repository}/actions/runs/${runId}`, { headers: { authorization: `Bearer ${token}`, accept: "application/vnd.github+json" } });
    await answer.body?.cancel();
    if (!answer.ok) return { ok: false, log: `::error::Unable to download artifact(s): Failed to ListArtifacts: Received non-retryable error: Failed request: (${answer.status}) ${answer.statusText}
` };
  }
  try {
    let downloaded: string[];
    if (name !== undefined || pattern === null) {
      downloaded = await ctx.artifacts.download({ runId, ...(name !== undefined ? { name } : {}), into, merge });
    } else {
      downloaded = [];
      for (const artifact of ctx.artifacts.names(runId).filter((n) => pattern.test(n))) {
        await ctx.artifacts.download({ runId, name: artifact, into: merge ? into : resolve(into, artifact), merge: true });
        downloaded.push(artifact);
      }
    }
    // Nothing downloaded (a run without artifacts): v4 says so and succeeds, making no folder.
    if (downloaded.length > 0) await ctx.chown(into);
    return { ok: true, log: `Downloaded ${downloaded.length} artifact(s): ${downloaded.join(", ")}\n`, outputs: { "download-path": into } };
  } catch (error) {
    if (error instanceof ArtifactError) return { ok: false, log: `::error::${error.message}\n` };
    throw error;
  }
}
