import { z } from "zod";
import { CRON_HINT, parseCron } from "./cron.ts";
import { DURATION_HINT, DURATION_PATTERN, parseDuration } from "./duration.ts";
import { ENV_NAME_PATTERN, forbiddenEnvReason } from "./env-policy.ts";
import { PRESET_NAMES } from "./presets.ts";
import { MAX_MEMORY_BYTES, MAX_SIZE_BYTES, parseSize, SIZE_HINT } from "./size.ts";

/**
 * The file format of `.github/naruto.yml` (docs/action.md), version 1. This is the one definition:
 * the loader parses with it and `schema/naruto.schema.json` is generated from it. Cross-field
 * rules (profile references, path normalization, profile timeouts defaulting to
 * `limits.item_timeout`) are applied afterwards by `resolveConfig`.
 */

export const PROFILE_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/;
export const PERMISSIONS = ["admin", "maintain", "write", "triage", "read"] as const;
import { DEFAULT_PROTECTED } from "../plan/index.ts";
export { DEFAULT_PROTECTED };

/** What to call a field's type in an error, where "a string" would not help (kept out of the JSON Schema). */
export const typeHints = z.registry<{ expected: string }>();

const Duration = z
  .string()
  .regex(DURATION_PATTERN, { error: `expected ${DURATION_HINT}`, abort: true })
  .check((ctx) => {
    const parsed = parseDuration(ctx.value);
    if (!parsed.ok) ctx.issues.push({ code: "custom", message: parsed.message, input: ctx.value });
  })
  .register(typeHints, { expected: DURATION_HINT });

const sizeUpTo = (maxBytes: number) =>
  z
    .union([z.string(), z.number()], { error: `expected ${SIZE_HINT}` })
    .check((ctx) => {
      const parsed = parseSize(ctx.value, maxBytes);
      if (!parsed.ok) ctx.issues.push({ code: "custom", message: parsed.message, input: ctx.value });
    })
    .register(typeHints, { expected: SIZE_HINT });

const Size = sizeUpTo(MAX_SIZE_BYTES);

const EnvName = z
  .string()
  .regex(ENV_NAME_PATTERN, { error: "expected a variable name (letters, digits and _; not starting with a digit)", abort: true })
  .check((ctx) => {
    const reason = forbiddenEnvReason(ctx.value);
    if (reason !== null) ctx.issues.push({ code: "custom", message: `${ctx.value} cannot be passed to an agent: ${reason}`, input: ctx.value });
  });

const ProfileName = z.string().regex(PROFILE_NAME_PATTERN, {
  error: "profile names are 1-63 characters of a-z, 0-9, '.', '_' and '-', starting with a letter or digit",
});

const count = (max: number) => z.number().int().min(1).max(max);

/** A path on the machine that runs the agents: absolute, or `~/…` for the home folder. */
const SandboxPath = z
  .string()
  .regex(/^(\/|~\/|~$)/, { error: "expected an absolute path or one starting with ~/" })
  .refine((p) => !/[\0\n]/.test(p), { error: "a path cannot hold NUL or a newline" });

export const SANDBOX_MODES = ["auto", "required", "none"] as const;
export const RED_BASE_MODES = ["stop", "compare"] as const;
/** When the App replays a queue onto its moved base: only when asked (`/naruto refresh`), or on every push to it too. */
export const REFRESH_MODES = ["manual", "on_push"] as const;

/** What `allow:` may let through the gate (docs/architecture.md), each refused by default. */
export const ALLOW_NAMES = ["submodules", "gitattributes"] as const;
export type AllowName = (typeof ALLOW_NAMES)[number];
export type SandboxMode = (typeof SANDBOX_MODES)[number];

export const AgentProfileSchema = z
  .strictObject({
    preset: z.enum(PRESET_NAMES).optional().describe("a built-in agent: its checked command line and auth variables"),
    command: z.string().min(1).optional().describe("run with `sh -c` in the worker's work tree; the prompt is in $NARUTO_PROMPT_FILE"),
    timeout: Duration.optional().describe("per attempt; default limits.item_timeout"),
    env: z.array(EnvName).default([]).describe("names of variables passed through from the runner's environment (added to a preset's)"),
    network: z
      .union([z.boolean(), z.literal("host")], { error: "expected true (the internet without the host), host (the host's network) or false (no network)" })
      .default(true)
      .describe(
        "what the agent reaches from its sandbox: true (default), the internet but not the host — its loopback, abstract sockets, own addresses, LAN, a cloud's metadata service — where slirp4netns works, else the host's network, said once; host, the host's network; false, no network at all",
      ),
    read: z
      .array(SandboxPath)
      .default([])
      .describe("more folders or files the agent sees read-only in its sandbox, e.g. where its CLI is installed (~/ is your home)"),
    login: z
      .boolean()
      .default(false)
      .describe(
        "show the agent this machine's login of its preset's CLI (claude, codex, gemini): a copy of the login file in its private home, never a refresh token its CLI would rotate (docs/agents.md)",
      ),
    description: z.string().optional(),
  })
  .check((ctx) => {
    if (ctx.value.login && (ctx.value.preset === undefined || ctx.value.preset === "aider")) {
      ctx.issues.push({
        code: "custom",
        input: ctx.value,
        message:
          "`login: true` shows a preset's CLI its login here: it needs `preset: claude`, `codex` or `gemini` (aider and plain commands take their keys from `env:`)",
      });
    }
    const hasPreset = ctx.value.preset !== undefined;
    const hasCommand = ctx.value.command !== undefined;
    if (hasPreset === hasCommand) {
      ctx.issues.push({
        code: "custom",
        input: ctx.value,
        message: hasPreset
          ? "give either `preset` or `command`, not both"
          : `needs a \`command\` (run with sh -c) or a \`preset\` (one of ${PRESET_NAMES.join(", ")})`,
      });
    }
  });

const CronText = z
  .string()
  .check((ctx) => {
    const parsed = parseCron(ctx.value);
    if (!parsed.ok) ctx.issues.push({ code: "custom", message: parsed.message, input: ctx.value });
  })
  .register(typeHints, { expected: CRON_HINT });

export const ScheduleSchema = z
  .strictObject({
    name: ProfileName.describe("names the schedule in its missions' issues; unique"),
    cron: CronText.describe(`when the sweep starts a mission: ${CRON_HINT}`),
    task: z.string().min(1).optional().describe("the request, as after /naruto"),
    plan: z.string().min(1).optional().describe("a plan file in the repository (read at the mission's base) instead of the planner agent"),
    approval: z.boolean().optional().describe("post the plan and wait for /naruto approve on the mission's issue (default: the top-level approval)"),
  })
  .check((ctx) => {
    if (ctx.value.task === undefined && ctx.value.plan === undefined) {
      ctx.issues.push({ code: "custom", input: ctx.value, message: "needs a `task` (what to do) or a `plan` (a plan file in the repository)" });
    }
  });

export const ConfigSchema = z
  .strictObject({
    version: z.literal(1).default(1).describe("config format version"),
    agents: z
      .record(ProfileName, AgentProfileSchema)
      .default({})
      .describe(`agent profiles by name; \`default\` always exists, presets ${PRESET_NAMES.join(", ")} are available by name`),
    planner: z.strictObject({ agent: ProfileName.default("default").describe("profile that writes a plan when a request has none") }).prefault({}),
    arbiter: z
      .strictObject({
        agent: z.string().nullable().default("none").describe("profile of the review agent, or `none` for the policy rules only"),
      })
      .prefault({}),
    queue: z
      .strictObject({
        verify: z.string().min(1).optional().describe("command run once per batch on the candidate queue head"),
        batch: count(256).default(8).describe("checkpoints integrated and verified together"),
        env: z.array(EnvName).default([]).describe("names of variables passed through to the verify command (it gets the basics a shell needs, and these)"),
        verify_report: z
          .string()
          .min(1)
          .refine((p) => !p.startsWith("/") && !p.split("/").includes("..") && !/[\0\n]/.test(p), {
            error: "expected a path or glob inside the repository (no leading /, no ..)",
          })
          .optional()
          .describe(
            "the JUnit XML file (or glob, like reports/**/*.xml) the verify command writes, relative to the repository root: a run that ran no test is red, and fewer tests or more skipped than before is a finding",
          ),
        red_base: z
          .enum(RED_BASE_MODES)
          .default("stop")
          .describe(
            "when verify already fails on the mission's base: stop (integrate nothing, say the base is red) or compare (a batch is green when it fails no test the base did not; needs verify_report)",
          ),
        confirm_runs: z
          .number()
          .int()
          .min(0)
          .max(10)
          .default(1)
          .describe(
            "runs, after a checkpoint's first red, that must all be red before the checkpoint is blamed; a green one among them is a flip (the verify is flaky there)",
          ),
        max_flips: z.number().int().min(0).max(1000).default(10).describe("flips a mission tolerates; one more stops integration, saying the verify is flaky"),
        refresh: z
          .enum(REFRESH_MODES)
          .default("manual")
          .describe(
            "when a finished mission's queue is replayed onto its moved base branch: manual (`/naruto refresh`, `naruto refresh`; a mission that ends on a moved base says so) or on_push (also by itself when a mission ends on a moved base, and with the App on every push to that branch while the queue pull request is open)",
          ),
      })
      .check((ctx) => {
        if (ctx.value.red_base === "compare" && ctx.value.verify_report === undefined) {
          ctx.issues.push({ code: "custom", input: ctx.value, path: ["red_base"], message: "red_base: compare compares test reports: set verify_report too" });
        }
      })
      .prefault({}),
    limits: z
      .strictObject({
        max_parallel: count(256).default(4).describe("attempts running at once (an Actions matrix holds at most 256 jobs)"),
        max_attempts: count(10).default(2).describe("runs of one item, first attempt included"),
        item_timeout: Duration.default("30m").describe("per attempt, from when its job starts"),
        queue_timeout: Duration.default("2h").describe(
          "how long an attempt may wait for a runner before its job starts, and for its result to be recorded after its job ended; then it times out and its run is cancelled",
        ),
        mission_timeout: Duration.default("6h"),
        max_items: count(100_000).default(1000).describe("largest plan accepted"),
        max_cost_usd: z.number().positive().optional().describe("stop starting attempts once reported costs reach this"),
        min_permission: z.enum(PERMISSIONS).default("write").describe("lowest repository permission that may run /naruto"),
        max_file_size: Size.default("50MiB").describe("largest file an agent may add or change (GitHub refuses files over 100 MiB)"),
        agent_processes: count(1_000_000)
          .default(1024)
          .describe("processes and threads one agent (or verify command) may have at once in its sandbox; reaching it stops the attempt"),
        agent_memory: sizeUpTo(MAX_MEMORY_BYTES)
          .default("8GiB")
          .describe("memory one agent's processes may hold together in its sandbox; passing it stops the attempt"),
        agent_file_size: Size.default("1GiB").describe(
          "largest file an agent may write in its sandbox (a write past it fails; a program it ends stops the attempt); more than max_file_size",
        ),
        agent_tmp_size: Size.default("1GiB").describe("size of the agent's /tmp, and of its /dev/shm: each is kept in memory"),
      })
      .prefault({})
      .check((ctx) => {
        const file = parseSize(ctx.value.agent_file_size);
        const committed = parseSize(ctx.value.max_file_size);
        if (file.ok && committed.ok && file.bytes <= committed.bytes) {
          ctx.issues.push({
            code: "custom",
            path: ["agent_file_size"],
            input: ctx.value.agent_file_size,
            message: "must be more than max_file_size: a file cut at the sandbox's limit would otherwise pass the gate cut short",
          });
        }
      }),
    protected: z
      .array(z.string())
      .default([...DEFAULT_PROTECTED])
      .describe(
        "paths no item may write unless allow_protected; replaces the default list (all of .github/, CODEOWNERS, the agents' start-up config), so keep .github/ in it",
      ),
    allow_protected: z.boolean().default(false),
    allow: z
      .array(z.enum(ALLOW_NAMES))
      .default([])
      .describe("what the gate lets agents change: submodules (gitlinks and .gitmodules), gitattributes (.gitattributes files); none by default"),
    allow_bots: z
      .array(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,38}(\[bot\])?$/, { error: "expected a GitHub login, like renovate[bot] (no @)" }))
      .default([])
      .describe("bot logins allowed to run /naruto, matched exactly"),
    approval: z.boolean().default(false).describe("`/naruto <task>` posts the plan and waits for `/naruto approve`"),
    sandbox: z
      .enum(SANDBOX_MODES)
      .default("auto")
      .describe("run agents, planner, review and verify commands under bubblewrap: auto (when bwrap works, else say so), required, or none"),
    workdir: SandboxPath.optional().describe(
      "where work directories are made (default $XDG_CACHE_HOME/naruto, else ~/.cache/naruto); never inside the repository",
    ),
    schedules: z
      .array(ScheduleSchema)
      .default([])
      .describe("missions the sweep starts on a schedule, each with an issue of its own (the workflow's schedule must run the sweep)"),
  })
  .meta({ title: "naruto configuration (.github/naruto.yml)" });

export type ConfigFile = z.output<typeof ConfigSchema>;
export type AgentProfileFile = z.output<typeof AgentProfileSchema>;
export type ScheduleFile = z.output<typeof ScheduleSchema>;
export type Permission = (typeof PERMISSIONS)[number];
