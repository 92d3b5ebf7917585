/**
 * actions/upload-artifact@v4 and actions/download-artifact@v4 over the simulator's artifact
 * store: the inputs the template uses (`name`, `path`, `if-no-files-found`,
 * `include-hidden-files`; `name`, `path`, `pattern`, `merge-multiple`) with the v4 behaviour.
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
  try {
    let downloaded: string[];
    if (name !== undefined || pattern === null) {
      downloaded = await ctx.artifacts.download({ runId: ctx.runId, ...(name !== undefined ? { name } : {}), into, merge });
    } else {
      downloaded = [];
      for (const artifact of ctx.artifacts.names(ctx.runId).filter((n) => pattern.test(n))) {
        await ctx.artifacts.download({ runId: ctx.runId, name: artifact, into: merge ? into : resolve(into, artifact), merge: true });
        downloaded.push(artifact);
      }
    }
    await ctx.chown(into);
    return { ok: true, log: `Downloaded ${downloaded.length} artifact(s): ${downloaded.join(", ")}\n`, outputs: { "download-path": into } };
  } catch (error) {
    if (error instanceof ArtifactError) return { ok: false, log: `::error::${error.message}\n` };
    throw error;
  }
}
