/**
 * git's smart HTTP on the fake: `git http-backend` as a CGI behind GitHub's rules. Basic auth
 * with any user name and a token as password (`x-access-token:TOKEN`); 401 with a challenge
 * when credentials are needed, 404 "Repository not found." when the token cannot see the
 * repository, 403 when it may read but not push.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { recordDelete, recordPush } from "./events.ts";
import { authenticate, hasAppPermission, userRole, type Principal } from "./auth.ts";
import { GitHubError } from "./errors.ts";
import { findRepo, roleAtLeast, type RepoState, type World } from "./state.ts";

/** `/{owner}/{repo}.git/{info/refs|git-upload-pack|git-receive-pack}` (`.git` optional, as on GitHub). */
export const GIT_PATH = /^\/([^/]+)\/([^/]+?)(?:\.git)?\/(info\/refs|git-upload-pack|git-receive-pack)$/;

type Decision = { readonly ok: true; readonly principal: Principal } | { readonly ok: false; readonly status: number; readonly text: string };

function decide(world: World, repo: RepoState | undefined, header: string | undefined, push: boolean): Decision {
  const challenge: Decision = { ok: false, status: 401, text: "Authentication required\n" };
  let principal: Principal;
  try {
    principal = authenticate(world, header);
  } catch (error) {
    if (error instanceof GitHubError) return challenge;
    throw error;
  }
  const notFound: Decision = { ok: false, status: 404, text: "Repository not found.\n" };
  if (principal.kind === "anonymous") return repo !== undefined && !repo.private && !push ? { ok: true, principal } : challenge;
  if (repo === undefined || principal.kind === "app") return notFound;
  const login = principal.account.login;
  const denied: Decision = { ok: false, status: 403, text: `Permission to ${repo.fullName}.git denied to ${login}.\n` };
  if (principal.kind === "user") {
    const role = userRole(repo, principal.account);
    if (role === "none") return notFound;
    return !push || roleAtLeast(role, "write") ? { ok: true, principal } : denied;
  }
  const covers =
    principal.installation.account.login.toLowerCase() === repo.owner.login.toLowerCase() &&
    (principal.repositories === null || principal.repositories.some((n) => n.toLowerCase() === repo.name.toLowerCase()));
  if (!covers || !hasAppPermission(principal.permissions, ["contents:read"])) return notFound;
  return !push || hasAppPermission(principal.permissions, ["contents:write"]) ? { ok: true, principal } : denied;
}

/** Serves one smart-HTTP request; resolves with the status and the login it ran as. */
export async function serveGit(input: {
  world: World;
  req: IncomingMessage;
  res: ServerResponse;
  match: RegExpExecArray;
  query: string;
}): Promise<{ status: number; user: string | null }> {
  const { world, req, res, match } = input;
  const [, owner = "", name = "", action = ""] = match;
  const repo = findRepo(world, owner, name);
  const push = action === "git-receive-pack" || new URLSearchParams(input.query).get("service") === "git-receive-pack";
  const decision = decide(world, repo, req.headers.authorization, push);
  if (!decision.ok || repo === undefined) {
    const status = decision.ok ? 404 : decision.status;
    const headers: Record<string, string> = { "content-type": "text/plain" };
    if (status === 401) headers["www-authenticate"] = 'Basic realm="GitHub"';
    req.resume();
    res.writeHead(status, headers).end(decision.ok ? "Repository not found.\n" : decision.text);
    return { status, user: null };
  }
  const principal = decision.principal;
  const user = principal.kind === "user" || principal.kind === "installation" ? principal.account.login : null;
  const workflowsAllowed = principal.kind !== "installation" || hasAppPermission(principal.permissions, ["workflows:write"]);
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "/usr/bin:/bin",
    HOME: tmpdir(),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_PROJECT_ROOT: world.root,
    GIT_HTTP_EXPORT_ALL: "1",
    PATH_INFO: `/${repo.owner.login}/${repo.name}.git/${action}`,
    REQUEST_METHOD: req.method ?? "GET",
    QUERY_STRING: input.query,
    CONTENT_TYPE: req.headers["content-type"] ?? "",
    REMOTE_USER: user ?? "anonymous",
    REMOTE_ADDR: req.socket.remoteAddress ?? "127.0.0.1",
    FAKE_GITHUB_WORKFLOWS: workflowsAllowed ? "allow" : "deny",
  };
  // What the push moved, for the events it starts (post-receive hook, events.ts).
  const pushLog = push && action === "git-receive-pack" ? join(await mkdtemp(join(tmpdir(), "fake-push-")), "refs") : null;
  if (pushLog !== null) env["FAKE_GITHUB_PUSH_LOG"] = pushLog;
  const encoding = req.headers["content-encoding"];
  if (typeof encoding === "string") env["HTTP_CONTENT_ENCODING"] = encoding;
  const protocol = req.headers["git-protocol"];
  if (typeof protocol === "string") env["GIT_PROTOCOL"] = protocol;
  const status = await runBackend(env, req, res);
  if (pushLog !== null) {
    const moved = await readFile(pushLog, "utf8").catch(() => "");
    await rm(dirname(pushLog), { recursive: true, force: true });
    for (const line of moved.split("\n")) {
      const [before = "", after = "", ref = ""] = line.trim().split(" ");
      if (ref === "") continue;
      if (/^0+$/.test(after)) {
        recordDelete(world, repo, { ref, before, principal });
        continue;
      }
      recordPush(world, repo, { ref, before: /^0+$/.test(before) ? null : before, after, principal });
    }
  }
  return { status, user };
}

/** Runs the CGI, turns its header block into the HTTP status line and headers, streams the rest. */
function runBackend(env: Record<string, string>, req: IncomingMessage, res: ServerResponse): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn("git", ["http-backend"], { env, stdio: ["pipe", "pipe", "pipe"] });
    req.pipe(child.stdin);
    child.stdin.on("error", () => {
      // The backend may stop reading early (e.g. on a bad request); its answer says why.
    });
    let head = Buffer.alloc(0);
    let status = 200;
    let started = false;
    child.stdout.on("data", (chunk: Buffer) => {
      if (started) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const text = head.toString("latin1");
      const end = text.search(/\r?\n\r?\n/);
      if (end === -1) return;
      const headers: Record<string, string> = {};
      for (const line of text.slice(0, end).split(/\r?\n/)) {
        const colon = line.indexOf(":");
        const key = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        if (key === "status") status = Number.parseInt(value, 10);
        else if (key !== "") headers[key] = value;
      }
      started = true;
      res.writeHead(status, headers);
      const bodyStart = end + (/^\r?\n\r?\n/.exec(text.slice(end))?.[0].length ?? 2);
      res.write(head.subarray(bodyStart));
    });
    child.stderr.resume();
    child.on("close", () => {
      if (!started) {
        status = 500;
        res.writeHead(500, { "content-type": "text/plain" });
      }
      res.end();
      resolve(status);
    });
  });
}
