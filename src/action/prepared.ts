/**
 * What an agent job's first step (the action, which holds the job's token) hands to its second
 * step (a plain `run:` step, which holds none and runs the agent): the mission as stored, the
 * config file's text at the mission's config commit (the default branch's head when the command
 * was accepted), and which attempt to run — one JSON file under `RUNNER_TEMP`. Nothing in it is
 * a credential: the agent may read it, and it says nothing the job's read-only token could not
 * read anyway.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { missionSchema, type Mission } from "../mission/index.ts";

export const PREPARED_FILE = "naruto-prepared.json";

const common = { mission: missionSchema, configPath: z.string(), configText: z.string().nullable(), artifact: z.string() };

const preparedSchema = z.object({
  schema: z.literal("naruto.prepared/v1"),
  job: z.discriminatedUnion("kind", [
    /** The step has nothing to do (the attempt is no longer in flight, the mission moved on). */
    z.object({ kind: z.literal("skip"), phase: z.enum(["plan", "work", "review", "queue"]), mission: z.string(), reason: z.string() }),
    z.object({ kind: z.literal("plan"), ...common }),
    z.object({
      kind: z.literal("work"),
      ...common,
      item: z.string(),
      attempt: z.number().int().min(1),
      /** The leg's job as the runner named it (its result names it, and publish checks that); null off a runner. */
      job: z.object({ runId: z.number().int().positive(), runAttempt: z.number().int().min(1), name: z.string() }).nullable(),
    }),
    z.object({ kind: z.literal("review"), ...common }),
    /**
     * The queue job: the legs of the work run that ended, as the action's step bound them to their
     * jobs and unpacked their artifacts (into `artifacts/<name>/`), onto the queue, verified.
     */
    z.object({
      kind: z.literal("queue"),
      ...common,
      artifacts: z.string(),
      dispatch: z.object({
        phase: z.enum(["plan", "work", "review", "integrate", "refresh"]).nullable(),
        items: z.array(z.object({ item: z.string(), attempt: z.number().int().min(1) })),
        run: z.number().int().positive().optional(),
      }),
      /** A refresh: the base branch's head as the action's step read it (the queue job replays onto it). */
      onto: z.object({ ref: z.string(), commit: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/) }).optional(),
      legs: z.array(
        z.object({
          item: z.string(),
          attempt: z.number().int().min(1),
          job: z.object({ runId: z.number().int().positive(), runAttempt: z.number().int().min(1), name: z.string() }),
        }),
      ),
      /** Legs that ended without a result the action's step took: their attempts fail with the reason. */
      failed: z.array(z.object({ item: z.string(), attempt: z.number().int().min(1), reason: z.string() })),
    }),
  ]),
});
export type PreparedJob = z.infer<typeof preparedSchema>["job"];
export type PreparedRun = Exclude<PreparedJob, { kind: "skip" }>;
export type PreparedOf<K extends PreparedRun["kind"]> = Extract<PreparedJob, { kind: K }>;

/** The prepared file is missing or not what the action's step wrote. */
export class PreparedFileError extends Error {
  override readonly name = "PreparedFileError";
}

/** Writes the file under `dir` and returns its path. */
export async function writePrepared(dir: string, job: PreparedJob): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, PREPARED_FILE);
  await writeFile(path, `${JSON.stringify({ schema: "naruto.prepared/v1", job }, null, 2)}\n`, { mode: 0o644 });
  return path;
}

export async function readPrepared(path: string): Promise<PreparedJob> {
  const text = await readFile(path, "utf8").catch((error: unknown) => {
    throw new PreparedFileError(
      `cannot read ${path} (${error instanceof Error ? error.message : String(error)}): run naruto's action step (mode plan, work or review) first and pass its \`prepared\` output as NARUTO_PREPARED`,
      { cause: error },
    );
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new PreparedFileError(`${path} is not JSON: run naruto's action step again`, { cause: error });
  }
  const parsed = preparedSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PreparedFileError(
      `${path}: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"} — was it written by the same version of naruto's action?`,
    );
  }
  return parsed.data.job;
}

/** The fields every runnable prepared job carries. */
export function preparedCommon(mission: Mission, input: { configPath: string; configText: string | null; artifact: string }) {
  return { mission, configPath: input.configPath, configText: input.configText, artifact: input.artifact };
}
