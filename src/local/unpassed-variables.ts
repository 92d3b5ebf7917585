/**
 * A variable set in the shell that a preset's CLI would read but its profile does not pass (a
 * gateway's `*_BASE_URL`, its headers, another of its vendor's keys): the agent runs without it,
 * and a CLI that would have gone to the gateway goes to the vendor's public host instead. naruto
 * never passes what a profile does not list (docs/architecture.md), so it names each such variable once
 * on the terminal, with the `env:` that passes it — or, for a variable the CLI does not read at
 * all, what it reads instead.
 */
import { forbiddenEnvReason, PRESET_AUTH, type Config } from "../config/index.ts";

export function unpassedVariables(config: Config, names: readonly string[], env: Readonly<Record<string, string | undefined>>): string[] {
  const lines: string[] = [];
  for (const name of names) {
    const profile = config.agents[name];
    if (profile === undefined || profile.preset === null) continue;
    const auth = PRESET_AUTH[profile.preset];
    const passed = new Set(profile.env);
    const who = name === "default" ? "the default agent" : `agent profile ${JSON.stringify(name)}`;
    for (const variable of Object.keys(env).sort()) {
      if ((env[variable] ?? "") === "" || passed.has(variable) || forbiddenEnvReason(variable) !== null) continue;
      const misread = auth.misread?.[variable];
      if (misread !== undefined) lines.push(`${who} (${auth.cli}): ${misread}`);
      else if (auth.related.test(variable)) {
        lines.push(
          `${variable} is set here, but ${who} (${auth.cli}) does not get it: pass it with env: in .github/naruto.yml — agents: { ${name}: { preset: ${profile.preset}, env: [${variable}] } }`,
        );
      }
    }
  }
  return [...new Set(lines)];
}
