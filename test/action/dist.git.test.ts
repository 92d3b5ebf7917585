/**
 * The committed bundle, run the way the runner runs a JavaScript action: `node dist/index.js`
 * with the inputs as `INPUT_*` variables (GitHub keeps the dash: `INPUT_GITHUB-TOKEN`), the
 * `GITHUB_*` variables, the event in a file, and outputs and the summary written to the files
 * `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY` name; and the way the template's agent step runs
 * it: a `run:` step, `node "$NARUTO_CLI"` with `NARUTO_PREPARED`, no input and no token.
 */
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BOT, newFolder, REPO, startWorld, type World } from "./world.ts";

const DIST = fileURLToPath(new URL("../../dist/index.js", import.meta.url));

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => world.close());

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly outputs: Record<string, string>;
  readonly summary: string;
  /** The job's folder: a later step of the same job runs in it. */
  readonly dir: string;
}

/** One step of a job: a fresh runner folder (unless `dir` continues a job), the event file, the action as a process. */
async function runAction(input: { inputs: Record<string, string>; event: { name: string; payload: unknown }; token: string; dir?: string }): Promise<Run> {
  // Every input of action.yml is set, defaults included, as the runner does.
  const inputs = {
    mode: "",
    mission: "",
    items: "",
    "github-token": input.token,
    config: ".github/naruto.yml",
    artifacts: "",
    "bot-login": BOT,
    ...input.inputs,
  };
  return runStep({
    ...input,
    argv: [DIST],
    env: Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.replaceAll(" ", "_").toUpperCase()}`, v])),
  });
}

/** A step of a job as a process: the runner's variables, `env` on top, in the job's folder `dir`. */
async function runStep(input: { argv: string[]; env: Record<string, string>; event: { name: string; payload: unknown }; dir?: string }): Promise<Run> {
  const dir = input.dir ?? (await newFolder("naruto-runner-"));
  const files = { event: join(dir, "event.json"), output: join(dir, `output-${Math.random().toString(36).slice(2)}`), summary: join(dir, "summary.md") };
  await writeFile(files.event, JSON.stringify(input.event.payload));
  await writeFile(files.output, "");
  await writeFile(files.summary, "");
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "",
    HOME: dir,
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_REPOSITORY: REPO,
    GITHUB_SERVER_URL: world.fake.url,
    GITHUB_API_URL: world.fake.url,
    GITHUB_EVENT_NAME: input.event.name,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_RUN_ID: "4242",
    GITHUB_WORKFLOW_REF: `${REPO}/.github/workflows/naruto.yml@refs/heads/main`,
    GITHUB_REF_NAME: "main",
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_WORKSPACE: join(dir, "workspace"),
    RUNNER_TEMP: join(dir, "temp"),
    NARUTO_GITHUB_WRITE_INTERVAL_MS: "0",
    ...input.env,
  };
  const child = spawn(process.execPath, input.argv, { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
  child.stderr.on("data", (b: Buffer) => (stdout += b.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, stdout, outputs: parseOutputFile(await readFile(files.output, "utf8")), summary: await readFile(files.summary, "utf8"), dir };
}

/** `name<<DELIMITER\nvalue\nDELIMITER\n`, as @actions/core writes GITHUB_OUTPUT. */
function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /^([^<\n]+)<<(\S+)\n([\s\S]*?)\n\2$/gm;
  for (const m of text.matchAll(re)) out[m[1]!] = m[3]!;
  return out;
}

describe("dist/index.js as the runner runs it", () => {
  it("command mode: a /naruto comment becomes a mission, with the mission output and a job summary", async () => {
    const event = await world.comment("octo-maintainer", "/naruto plan tidy up\n\n```naruto\nversion: 1\nitems:\n  - id: tidy\n    writes: [src/tidy.ts]\n```");
    const payload = world.fake.payloads.issueComment({ repo: REPO, commentId: event.comment.id });
    const { token } = world.fake.issueAppToken({
      owner: "acme",
      permissions: { metadata: "read", contents: "write", issues: "write", pull_requests: "write", actions: "write" },
      bot: BOT,
    });
    const run = await runAction({ inputs: { mode: "command" }, event: { name: "issue_comment", payload }, token });
    expect(run.code, run.stdout).toBe(0);
    const id = run.outputs["mission"];
    expect(id).toMatch(/^m-[a-z0-9]+$/);
    expect(run.summary).toContain(`mission \`${id}\` requested`);
    // The token is only ever named to the runner to be masked.
    expect(run.stdout.split("\n").filter((l) => l.includes(token))).toEqual([`::add-mask::${token}`]);
    expect(world.fake.dispatches.filter((d) => d.inputs["mission"] === id).map((d) => d.inputs["phase"])).toEqual(["plan"]);

    // The plan job of the dispatched run: the action's step, with the read-only token, prepares
    // and exits; the agent step, without any token, writes the request's own plan into the artifact.
    const read = world.fake.issueAppToken({ owner: "acme", permissions: { metadata: "read", contents: "read" }, bot: BOT });
    const dispatch = { name: "workflow_dispatch", payload: { inputs: { mission: id, phase: "plan", items: "[]" } } };
    const prepare = await runAction({ inputs: { mode: "plan", mission: id! }, event: dispatch, token: read.token });
    expect(prepare.code, prepare.stdout).toBe(0);
    expect(prepare.outputs["cli"]).toBe(DIST);
    const prepared = prepare.outputs["prepared"] ?? "";
    expect(await readFile(prepared, "utf8")).not.toContain(read.token);
    const stepEnv = { NARUTO_CLI: prepare.outputs["cli"] ?? "", NARUTO_PREPARED: prepared };

    // The step refuses to run with a token in reach (a workflow that passes one in env:).
    const withToken = await runStep({ argv: [stepEnv.NARUTO_CLI], env: { ...stepEnv, GITHUB_TOKEN: read.token }, event: dispatch, dir: prepare.dir });
    expect(withToken.code).toBe(1);
    expect(withToken.stdout).toContain("TokenInStepError: the agent step holds GITHUB_TOKEN in its environment");

    const plan = await runStep({ argv: [stepEnv.NARUTO_CLI], env: stepEnv, event: dispatch, dir: prepare.dir });
    expect(plan.code, plan.stdout).toBe(0);
    const artifact = JSON.parse(await readFile(join(prepare.outputs["artifact"]!, "plan.json"), "utf8")) as {
      mission: string;
      outcome: { kind: string; text: string };
    };
    expect(artifact).toMatchObject({ mission: id, outcome: { kind: "plan" } });
    expect(artifact.outcome.text).toContain("id: tidy");
  });

  it("fails the step with an error annotation for a bad input", async () => {
    const { token } = world.fake.issueAppToken({ owner: "acme", permissions: { metadata: "read" }, bot: BOT });
    const run = await runAction({ inputs: { mode: "deploy" }, event: { name: "workflow_dispatch", payload: {} }, token });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      '::error::naruto: ModeInputError: input mode "deploy": expected one of command, plan, work, watch, review, queue, publish, sweep',
    );
  });
});
