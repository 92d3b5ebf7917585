/**
 * `naruto doctor [--repo OWNER/NAME] [--token T] [--api-url URL] [--app-id ID --private-key FILE
 * | --app-env FILE]`: checks the repository's naruto setup against GitHub and prints each finding
 * with its fix. Exit 0 when nothing stops a mission, 1 when something does, 2 when it cannot ask.
 *
 * The token: --token, else GITHUB_TOKEN or GH_TOKEN, else `gh auth token` for the repository's
 * host. Listing secrets and reading the Actions settings take an admin of the repository; with
 * less, doctor says what it could not check.
 */
import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseEnv } from "node:util";
import { createDoctorGitHub, formatFindings, runDoctor, type AppCredentials } from "../doctor/index.ts";
import { apiUrl, parseRepoFlag, type GitHubRepository } from "../setup/index.ts";
import { EXIT, UsageError } from "./errors.ts";
import type { CliIO } from "./io.ts";
import { narutoTemplate, setupContext } from "./setup-context.ts";

export interface DoctorOptions {
  readonly repo?: string;
  readonly token?: string;
  readonly apiUrl?: string;
  readonly appId?: string;
  readonly privateKey?: string;
  readonly appEnv?: string;
}

export async function doctorCommand(io: CliIO, o: DoctorOptions): Promise<number> {
  const repo = await repositoryOf(io, o.repo);
  const token = o.token ?? io.env["GITHUB_TOKEN"] ?? io.env["GH_TOKEN"] ?? ghToken(io, repo.host);
  if (!token)
    throw new UsageError(
      `no GitHub token: give --token, set GITHUB_TOKEN, or log in with \`gh auth login${repo.host === "github.com" ? "" : ` --hostname ${repo.host}`}\``,
    );
  const naruto = await narutoTemplate();
  const github = createDoctorGitHub({
    repo,
    token,
    baseUrl: o.apiUrl ?? apiUrl(repo),
    app: await appCredentials(io, o),
    userAgent: `naruto-doctor/${naruto.version}`,
  });
  io.stdout(`naruto doctor ${naruto.version}: ${repo.owner}/${repo.name} on ${repo.host}\n`);
  let findings;
  try {
    findings = await runDoctor({ github, repo, naruto });
  } catch (error) {
    // No HTTP answer at all (the host is wrong or unreachable): nothing could be checked.
    if (error instanceof TypeError || (error as { status?: unknown }).status === 500)
      throw new UsageError(
        `could not reach GitHub at ${o.apiUrl ?? apiUrl(repo)}: ${(error as Error).message}; check --api-url (a GitHub Enterprise Server's is https://HOST/api/v3) and the network`,
      );
    throw error;
  }
  io.stdout(formatFindings(findings));
  return findings.some((f) => f.severity === "fail") ? EXIT.no : EXIT.ok;
}

async function repositoryOf(io: CliIO, flag: string | undefined): Promise<GitHubRepository> {
  // --repo alone needs no clone: doctor asks GitHub, not the work tree.
  if (flag !== undefined) {
    const fromFlag = parseRepoFlag(flag);
    if (fromFlag === null) throw new UsageError(`--repo ${flag}: expected OWNER/NAME`);
    const context = await setupContext(io, flag).catch(() => null);
    return context?.repo ?? fromFlag;
  }
  const context = await setupContext(io, undefined).catch(() => null);
  if (context?.repo == null) throw new UsageError("which repository? run doctor in a clone whose origin is on GitHub, or name it with --repo OWNER/NAME");
  return context.repo;
}

function ghToken(io: CliIO, host: string): string | null {
  const gh = spawnSync("gh", ["auth", "token", "--hostname", host], {
    env: { ...io.env } as NodeJS.ProcessEnv,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  return gh.status === 0 && gh.stdout.trim() !== "" ? gh.stdout.trim() : null;
}

/** The App's own id and key, from the flags or an .env file of its server; null when none are given. */
async function appCredentials(io: CliIO, o: DoctorOptions): Promise<AppCredentials | null> {
  const env: Record<string, string | undefined> =
    o.appEnv === undefined
      ? {}
      : parseEnv(
          await readFile(resolve(io.cwd, o.appEnv), "utf8").catch(() => {
            throw new UsageError(`--app-env ${o.appEnv}: cannot read it`);
          }),
        );
  const appId = o.appId ?? env["APP_ID"];
  const keyPath = o.privateKey ?? env["PRIVATE_KEY_PATH"];
  const inline = o.privateKey === undefined ? env["PRIVATE_KEY"]?.replace(/\\n/g, "\n") : undefined;
  if (appId === undefined && keyPath === undefined && inline === undefined) return null;
  if (appId === undefined) throw new UsageError("--private-key needs --app-id (the App's id, on its settings page)");
  const privateKey =
    inline ??
    (keyPath === undefined
      ? undefined
      : await readFile(resolve(io.cwd, keyPath), "utf8").catch(() => {
          throw new UsageError(`cannot read the App's private key ${keyPath}`);
        }));
  if (privateKey === undefined) throw new UsageError("--app-id needs --private-key FILE (the App's .pem)");
  return { appId, privateKey };
}
