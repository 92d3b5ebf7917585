/**
 * `login: true` (a profile's key; `naruto run --login` on a machine) shows an agent a copy of its
 * CLI's login from the machine naruto runs on: the files `claude auth login`, `codex login` or
 * Gemini's "Login with Google" left in that user's home. A GitHub runner is a fresh machine with
 * no such login, so every attempt of that profile would fail at once (its item failed, no retry).
 * A mission on GitHub is refused before anything is made, naming each such profile and what
 * stands in for its login there (a secret, passed by the workflow): in the reply to its command,
 * and for the clock's missions in the sweep's summary, where an invalid config is said too.
 *
 * Every profile of the config counts, not only the planner's and the review agent's: a plan's
 * item may name any of them, and its attempt would meet the same missing login.
 */
import { PRESET_AUTH, type Config } from "../config/index.ts";
import type { CommentContext, CommentOutcome } from "./comment-types.ts";

/** Why no mission on GitHub may start with `config`, and what to do; null when no profile asks for a login. */
export function loginOnRunner(config: Config, configPath: string): string | null {
  // The schema allows `login: true` only with a preset that has a login (src/config/schema.ts).
  const lines = Object.values(config.agents).flatMap((profile) => {
    const auth = profile.login && profile.preset !== null ? PRESET_AUTH[profile.preset] : null;
    if (auth === null) return [];
    const who = `${profile.name === "default" ? "the default agent" : `agent profile ${JSON.stringify(profile.name)}`} (${auth.cli})`;
    return [{ who, secret: auth.login?.onRunner ?? "its CLI's API key" }];
  });
  if (lines.length === 0) return null;
  const one = lines.length === 1;
  return [
    `${lines.map((l) => l.who).join(", ")} ${one ? "has" : "have"} \`login: true\` in ${configPath}, which copies a logged-in CLI's login from the machine naruto runs on, and a GitHub runner has no login to copy: every attempt would fail.`,
    "",
    `Give ${one ? "it" : "each"} a repository secret instead, and remove \`login: true\` from ${configPath} (on your own machine, \`naruto run --login\` gives the login without it):`,
    ...lines.map((l) => `- ${l.who}: ${l.secret}`),
    "",
    "Pass the secret in the workflow's agent steps, as the template passes `ANTHROPIC_API_KEY`: the `plan-env`, `work-env` and `review-env` blocks of .github/workflows/naruto.yml (`NAME: ${{ secrets.NAME }}`). The preset passes it on to the agent; a variable of your own goes in the profile's `env:` too.",
  ].join("\n");
}

/** Replies with {@link loginOnRunner}'s refusal when there is one; null when the mission may start. */
export async function refuseLoginOnRunner(ctx: CommentContext, config: Config): Promise<CommentOutcome | null> {
  const refusal = loginOnRunner(config, ctx.deps.configPath);
  if (refusal === null) return null;
  await ctx.reply(`naruto did not start: ${refusal}`);
  return { kind: "replied", reason: "login on a runner" };
}
