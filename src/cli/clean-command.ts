/**
 * `naruto clean [--older-than 7d] [--mission ID] [--queues] [--kept] [--dry-run]`: deletes what
 * finished missions left on this machine (see src/local/clean.ts) and says what it did.
 */
import { parseDuration } from "../config/index.ts";
import { gitCommonDir } from "../engine/index.ts";
import { createGit } from "../git/index.ts";
import { cleanMissions, type CleanedMission } from "../local/index.ts";
import { EXIT, UsageError } from "./errors.ts";
import type { CliIO } from "./io.ts";
import { repoRoot } from "./mission-commands.ts";

export interface CleanCommandOptions {
  readonly olderThan?: string;
  readonly mission?: string;
  readonly queues: boolean;
  readonly kept: boolean;
  readonly dryRun: boolean;
}

export async function cleanCommand(io: CliIO, o: CleanCommandOptions): Promise<number> {
  let olderThanMs: number | null = null;
  if (o.olderThan !== undefined) {
    const age = parseDuration(o.olderThan, Number.POSITIVE_INFINITY);
    if (!age.ok) throw new UsageError(`--older-than ${o.olderThan}: expected an age like 12h, 7d or 30d`);
    olderThanMs = age.ms;
  }
  const git = createGit({ env: io.env });
  const repoDir = await repoRoot(git, io.cwd);
  const commonDir = await gitCommonDir(git, repoDir);
  const cleaned = await cleanMissions(
    { git, repoDir, commonDir, env: io.env, cwd: io.cwd, now: () => new Date() },
    { olderThanMs, mission: o.mission ?? null, queues: o.queues, kept: o.kept, dryRun: o.dryRun },
  );
  if (o.mission !== undefined && cleaned.length === 0) {
    io.stdout(`nothing to clean for ${o.mission}\n`);
    return EXIT.ok;
  }
  io.stdout(describe(cleaned, o.dryRun));
  return EXIT.ok;
}

function describe(cleaned: readonly CleanedMission[], dryRun: boolean): string {
  const done = cleaned.filter((c) => c.skipped === null);
  const lines: string[] = [];
  for (const c of done) {
    const branches = c.refs.filter((r) => r.startsWith("refs/heads/")).length;
    const kept = c.refs.length - branches;
    const parts = [
      plural(branches, "branch", "branches"),
      plural(c.workDirs.length, "work directory", "work directories"),
      ...(kept > 0 ? [plural(kept, "kept attempt", "kept attempts")] : []),
    ];
    lines.push(`${dryRun ? "would clean" : "cleaned"} ${c.id} (${c.status}): ${parts.join(", ")}`);
    if (dryRun) for (const r of c.refs) lines.push(`  ${r.replace(/^refs\/heads\//, "")}`);
    if (dryRun) for (const d of c.workDirs) lines.push(`  ${d}`);
  }
  for (const c of cleaned) if (c.skipped !== null) lines.push(`left ${c.id} alone: ${c.skipped}`);
  if (done.length === 0) lines.push("nothing to clean: finished missions left no branches of integrated items or work directories");
  else if (!dryRun) lines.push("queue branches and work found nowhere else stay (--queues and --kept delete them); `naruto status` still lists the missions");
  return `${lines.join("\n")}\n`;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
