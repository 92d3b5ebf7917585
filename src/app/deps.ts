/**
 * What the App needs from outside (STYLE.md 4): `main.ts` builds it from the environment,
 * tests build it against the fake GitHub. Nothing here is state that matters: a restarted App
 * rebuilds it and loses nothing (the mission state lives in the repository).
 */
import type { CreateGitHubOptions } from "../github/index.ts";

export interface AppDeps {
  /** `<slug>[bot]`: the login the App's comments carry (its own comments are ignored). */
  readonly botLogin: string;
  /** Path of the config in each repository (`.github/naruto.yml`). */
  readonly configPath: string;
  /** The workflow file runs are dispatched to (`naruto.yml`). */
  readonly workflow: string;
  /** That workflow's `name:` (`naruto`): `workflow_job` events carry only the name, not the file. */
  readonly workflowName: string;
  readonly now: () => Date;
  readonly userAgent: string;
  /** Fewest milliseconds between two tracking-comment renders of one mission (GitHub: 80 writes a minute). */
  readonly trackingIntervalMs: number;
  /**
   * The secret values the App holds (its private key, webhook secret, any credential-named
   * variable: `secretValues` of its environment): redacted, with the known formats, from every
   * comment, check run and log line it writes (installation.ts).
   */
  readonly secrets: readonly string[];
  /** Client tuning passed to `createGitHub` (tests: no write spacing, fast retries). */
  readonly client?: Pick<CreateGitHubOptions, "throttle" | "retry" | "sleep" | "requestTimeoutMs">;
}
