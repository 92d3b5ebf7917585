/**
 * Before `naruto run` makes anything: does every preset agent the mission starts have
 * credentials it will take? A run without them would start the mission, then fail each attempt
 * with the CLI's own "not logged in" — or, for a CLI that waits for a network it cannot reach
 * without a key, print nothing for minutes. The answer comes from what the agent will get (the
 * variables its profile passes, its login when `login: true`) and from the CLI itself where it
 * offers an offline probe (src/config/preset-auth.ts). A refusal names the commands that fix it.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildCommandEnv, placeLogin, readLogin } from "../agent/index.ts";
import { authVariableNames, formatFix, PRESET_AUTH, type AgentProfile, type Config, type PresetAuth } from "../config/index.ts";
import { RunRefusedError } from "./preflight.ts";

/** Runs a probe: exit code 0 means the CLI has credentials. */
export type Probe = (input: { readonly command: readonly string[]; readonly env: Readonly<Record<string, string>>; readonly cwd: string }) => Promise<number>;

export interface AuthCheckDeps {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: () => Date;
  readonly probe?: Probe;
}

export async function checkAgentsAuthenticated(config: Config, names: readonly string[], deps: AuthCheckDeps): Promise<void> {
  const problems: string[] = [];
  const checked = new Set<string>();
  for (const name of names) {
    const profile = config.agents[name];
    if (profile === undefined || profile.preset === null) continue;
    // Profiles that pass the same variables to the same preset get the same answer.
    const key = JSON.stringify([profile.preset, profile.env, profile.login, profile.login ? profile.timeout : 0]);
    if (checked.has(key)) continue;
    checked.add(key);
    const why = await credentialsMissing(profile, deps);
    if (why !== null) problems.push(why);
  }
  if (problems.length > 0) throw new RunRefusedError(`${problems.join("\n\n")}\nNothing was started.`);
}

/** Why the profile's agent would have no credentials; null when it has some. */
async function credentialsMissing(profile: AgentProfile, deps: AuthCheckDeps): Promise<string | null> {
  if (profile.preset === null) return null;
  const auth = PRESET_AUTH[profile.preset];
  const env = buildCommandEnv({ from: deps.env, allow: profile.env }).env;
  if (auth.variables.some((names) => names.every((n) => (env[n] ?? "") !== ""))) return null;
  if (profile.preset === "codex" && (await ownCodexProvider(env))) return null;
  const who = `${profile.name === "default" ? "the default agent" : `agent profile ${JSON.stringify(profile.name)}`} (${auth.cli})`;
  if (profile.login && auth.login !== null) {
    const copy = await readLogin({ login: auth.login, cli: auth.cli, env: deps.env, now: deps.now(), validForMs: profile.timeout });
    if (!copy.ok) return `${who} was to use its login on this machine, but ${copy.why}.\n${otherWays(auth)}`;
    if (auth.probe === null || (await probe(auth, env, deps, copy))) return null;
    return `${who}: \`${auth.probe.join(" ")}\` does not take the copy of its login made from ${copy.source}: log it in again with \`${auth.login.signIn}\`.\n${otherWays(auth)}`;
  }
  if (auth.probe !== null && (await probe(auth, env, deps, null))) return null;
  const misread = Object.entries(auth.misread ?? {}).flatMap(([name, advice]) => ((deps.env[name] ?? "") !== "" ? [`  (${advice})`] : []));
  const probed = auth.probe === null ? "" : `, and \`${auth.probe.join(" ")}\` finds no login where the agent runs`;
  return [
    `${who} has no credentials: none of ${authVariableNames(auth).join(", ")} reaches it${probed}. A run would fail at its first model call. Give it one:`,
    formatFix(auth),
    ...misread,
    `A variable the profile does not pass goes in its env: in .github/naruto.yml.`,
  ].join("\n");
}

function otherWays(auth: PresetAuth): string {
  return `Or give it credentials another way:\n${formatFix(auth)}`;
}

/**
 * Runs the CLI's probe as the agent would be: the variables it gets, a private HOME (holding
 * the copy of its login, when it gets one), in an empty folder.
 */
async function probe(
  auth: PresetAuth,
  env: Readonly<Record<string, string>>,
  deps: AuthCheckDeps,
  login: Extract<Awaited<ReturnType<typeof readLogin>>, { ok: true }> | null,
): Promise<boolean> {
  if (auth.probe === null) return false;
  const home = await mkdtemp(join(tmpdir(), "naruto-auth-"));
  try {
    if (login !== null) await placeLogin(login, home);
    // The presets copy only settings from a CLI home they are given; its login comes as above.
    const { CODEX_HOME: _c, GEMINI_CLI_HOME: _g, ...rest } = env;
    return (await (deps.probe ?? runProbe)({ command: auth.probe, env: { ...rest, HOME: home }, cwd: home })) === 0;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

const PROBE_TIMEOUT_MS = 20_000;

/** Runs a probe as a child process (a CLI that hangs counts as "no"). */
export const runProbe: Probe = ({ command, env, cwd }) =>
  new Promise((done) => {
    const [file = "", ...args] = command;
    const child = execFile(file, args, { env, cwd, timeout: PROBE_TIMEOUT_MS }, (error) => {
      done(error === null ? 0 : typeof (error as { code?: unknown }).code === "number" ? Number((error as { code: number }).code) : 1);
    });
    child.stdin?.end();
  });

/**
 * A Codex config (the CODEX_HOME the profile passes) that chooses a model provider of its own:
 * its key comes from the variable the provider names, which naruto cannot tell; not checked.
 */
async function ownCodexProvider(env: Readonly<Record<string, string>>): Promise<boolean> {
  const home = env.CODEX_HOME;
  if (!home) return false;
  const toml = await readFile(join(home, "config.toml"), "utf8").catch(() => "");
  return /^\s*model_provider\s*=/m.test(toml);
}
