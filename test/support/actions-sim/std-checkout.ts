/**
 * actions/checkout (v5), run inside the job's machine as the job's user: fetch from the fake
 * GitHub over smart HTTP with the token as an `AUTHORIZATION: basic` extra header (how the
 * real action authenticates), `ref`, `fetch-depth` (0 = all branches and tags), `path`, and
 * `persist-credentials`: when true the header stays in the checkout's local git config (as the
 * real action leaves it), when false no credential is written anywhere.
 */
import { resolve } from "node:path";
import type { StepContext, StepOutcome } from "./types.ts";

const SHA = /^[0-9a-f]{40}$/i;

interface Target {
  /** Refspecs to fetch, one fetch per group (all history first, then the commit to check out). */
  readonly fetches: readonly (readonly string[])[];
  /** `git checkout` arguments. */
  readonly checkout: readonly string[];
}

function target(input: { ref: string; sha: string; defaultRef: string; all: boolean }): Target {
  // fetch-depth 0: every branch and tag, then (as the real action's ref test does) the commit
  // itself onto the branch's remote ref, in case the branch moved since the event.
  const all = input.all ? [["+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"]] : [];
  const ref = input.ref === "" ? input.defaultRef : input.ref;
  if (SHA.test(ref)) return { fetches: [...all, [ref]], checkout: ["--force", "--detach", ref] };
  if (ref.startsWith("refs/tags/")) return { fetches: [...all, [`+${ref}:${ref}`]], checkout: ["--force", "--detach", ref] };
  const branch = ref.replace(/^refs\/heads\//, "");
  // With no `ref`, the action checks out the event's commit on the event's branch.
  const source = input.ref === "" && input.sha !== "" ? input.sha : `refs/heads/${branch}`;
  return { fetches: [...all, [`+${source}:refs/remotes/origin/${branch}`]], checkout: ["--force", "-B", branch, `refs/remotes/origin/${branch}`] };
}

export async function runCheckout(ctx: StepContext, inputs: Readonly<Record<string, string>>): Promise<StepOutcome> {
  const repository = inputs["repository"] || ctx.github.repository;
  const token = inputs["token"] || ctx.token;
  const depth = Number(inputs["fetch-depth"] || "1");
  const persist = (inputs["persist-credentials"] || "true").toLowerCase() === "true";
  const dir = resolve(ctx.workspace, inputs["path"] || ".");
  const server = ctx.github.serverUrl;
  const header = `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
  const key = `http.${server}/.extraheader`;
  const env = { ...ctx.env, GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_NOSYSTEM: "1" };
  const auth = { ...env, GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: key, GIT_CONFIG_VALUE_0: header };
  const { fetches, checkout } = target({ ref: inputs["ref"] ?? "", sha: ctx.github.sha, defaultRef: ctx.github.ref, all: depth === 0 });

  let log = "";
  const git = async (args: readonly string[], withAuth = false): Promise<boolean> => {
    const result = await ctx.machine.exec({ argv: ["git", ...args], cwd: ctx.workspace, env: withAuth ? auth : env });
    log += `[command]git ${args.map((a) => (a === header ? "***" : a)).join(" ")}\n${result.output}`;
    return result.code === 0;
  };
  let ok = (await git(["init", "-q", dir])) && (await git(["-C", dir, "remote", "add", "origin", `${server}/${repository}`]));
  for (const refspecs of fetches) {
    ok &&= await git(
      ["-C", dir, "fetch", "--no-tags", "--prune", "--no-recurse-submodules", ...(depth > 0 ? [`--depth=${depth}`] : []), "origin", ...refspecs],
      true,
    );
  }
  ok = ok && (await git(["-C", dir, "checkout", "-q", ...checkout])) && (!persist || (await git(["-C", dir, "config", "--local", key, header])));
  return { ok, log };
}
