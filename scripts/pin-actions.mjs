#!/usr/bin/env node
/**
 * Pins every `uses:` of workflow files to a full commit SHA with its release as a comment:
 *
 *   uses: actions/checkout@v5   →   uses: actions/checkout@fbc6f399… # v5.1.0
 *
 *   node scripts/pin-actions.mjs [--naruto <sha> --naruto-version vX.Y.Z] [files…]
 *
 * Files default to templates/naruto.yml. Third-party actions are pinned from
 * scripts/action-pins.json, to the release of the same major version the line names (`@v5`,
 * `@v5.0.1`, or a pinned SHA's `# v5.x.y` comment); naruto-dev/naruto is pinned to --naruto (default: the last commit of
 * this repository that changed dist/ or action.yml) as --naruto-version (default: v<version of
 * package.json>). Running it twice changes nothing the second time. It prints every change, and
 * writes nothing and exits 1 when a `uses:` has no pin here: add the release to
 * scripts/action-pins.json first.
 * Local actions (`./…`) and images pinned by digest (`docker://…@sha256:…`) are left as they are.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isMap, isScalar, isSeq, parseDocument } from "yaml";

/**
 * Releases pinned by commit (scripts/action-pins.json). `sha` is the commit the release tag points
 * to (for an annotated tag, the commit it dereferences to: `git rev-parse <tag>^{commit}`), read
 * from the action's own repository; `using` is the `runs.using` of the action's `action.yml` at
 * that commit (Node 20 is gone from the runners: every release here says `node24`, which
 * test/action/pins.test.ts checks). To add or update one: fetch the repository, check the tag's
 * commit (`git ls-remote https://github.com/<action> 'refs/tags/<tag>*'`: the `^{}` line for an
 * annotated tag) and its action.yml, and change it there and in the workflows (run this script,
 * or let Dependabot).
 */
const PINS = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "action-pins.json"), "utf8"));

const NARUTO = "naruto-dev/naruto";
const SHA = /^[0-9a-f]{40}$/;
const VERSION = /^v\d+\.\d+\.\d+$/;
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function fail(message) {
  console.error(`pin-actions: ${message}`);
  process.exit(1);
}

function parseArgs(argv) {
  const files = [];
  let narutoSha;
  let narutoVersion;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--naruto" || arg === "--naruto-version") {
      const value = argv[++i];
      if (value === undefined) fail(`${arg} needs a value`);
      if (arg === "--naruto") narutoSha = value;
      else narutoVersion = value;
    } else if (arg === "--help" || arg === "-h") {
      console.log("usage: node scripts/pin-actions.mjs [--naruto <sha> --naruto-version vX.Y.Z] [files…]");
      process.exit(0);
    } else if (arg.startsWith("-")) {
      fail(`unknown option ${arg}`);
    } else {
      files.push(resolve(arg));
    }
  }
  return { files: files.length > 0 ? files : [join(ROOT, "templates/naruto.yml")], narutoSha, narutoVersion };
}

function git(args) {
  return execFileSync("git", args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

function gitSucceeds(args) {
  try {
    git(args);
    return true;
  } catch {
    return false;
  }
}

/** naruto's own pin: the given commit, or the last one that changed what the Action runs. */
function narutoPin({ narutoSha, narutoVersion }) {
  const isCheckout = gitSucceeds(["rev-parse", "--is-inside-work-tree"]);
  let sha = narutoSha;
  if (sha === undefined) {
    if (!isCheckout) fail(`${ROOT} is not a git checkout: give naruto's commit with --naruto <sha>`);
    sha = git(["log", "-1", "--format=%H", "--", "dist", "action.yml"]);
    if (gitSucceeds(["diff", "--quiet", "HEAD", "--", "dist", "action.yml"]) === false) {
      console.warn(`pin-actions: dist/ or action.yml has changes not committed: ${NARUTO} is pinned to ${sha}, which does not have them`);
    }
  }
  if (!SHA.test(sha)) fail(`--naruto must be a full commit SHA (40 lowercase hex), not ${sha}`);
  if (isCheckout) {
    if (!gitSucceeds(["cat-file", "-e", `${sha}^{commit}`])) fail(`${sha} is not a commit of this repository`);
    for (const file of ["action.yml", "dist/index.js"]) {
      if (!gitSucceeds(["cat-file", "-e", `${sha}:${file}`])) fail(`commit ${sha} has no ${file}: it cannot run as the Action`);
    }
  }
  const version = narutoVersion ?? `v${JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version}`;
  if (!VERSION.test(version)) fail(`--naruto-version must look like vX.Y.Z, not ${version}`);
  return { sha, version };
}

/** Every `uses:` scalar of a workflow: each job's own (reusable workflows) and its steps'. */
function usesNodes(doc) {
  const nodes = [];
  const jobs = doc.get("jobs", true);
  if (!isMap(jobs)) return nodes;
  for (const job of jobs.items) {
    if (!isMap(job.value)) continue;
    const own = job.value.get("uses", true);
    if (own !== undefined) nodes.push(own);
    const steps = job.value.get("steps", true);
    if (!isSeq(steps)) continue;
    for (const step of steps.items) {
      const uses = isMap(step) ? step.get("uses", true) : undefined;
      if (uses !== undefined) nodes.push(uses);
    }
  }
  return nodes;
}

/** The pin for `action@ref`, given the comment on its line; a string says why there is none. */
function pinFor({ action, ref, comment, naruto }) {
  if (action === NARUTO) return naruto();
  const releases = PINS.filter((pin) => pin.action === action);
  if (releases.length === 0) return `no pin for ${action} in scripts/action-pins.json`;
  const known = releases.find((pin) => pin.sha === ref);
  if (known !== undefined) return known;
  const named = SHA.test(ref) ? comment : ref;
  const major = /^v(\d+)(?:\.\d+){0,2}(?:\s|$)/.exec(named ?? "")?.[1];
  if (major === undefined) {
    return `cannot tell which release of ${action} "@${ref}"${comment ? ` # ${comment}` : ""} means: write it as @v<major>`;
  }
  const pin = releases.find((p) => p.version.startsWith(`v${major}.`));
  return pin ?? `no pin for ${action} v${major} in scripts/action-pins.json (it has ${releases.map((p) => p.version).join(", ")})`;
}

/** The edits that pin one file's text, and what cannot be pinned. Edits are [start, end, text]. */
function planFile({ text, naruto }) {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) return { edits: [], changes: [], problems: [`not valid YAML: ${doc.errors[0].message}`] };
  const edits = [];
  const changes = [];
  const problems = [];
  for (const node of usesNodes(doc)) {
    const line = text.slice(0, node.range?.[0] ?? 0).split("\n").length;
    if (!isScalar(node) || typeof node.value !== "string" || node.range === undefined) {
      problems.push(`line ${line}: uses: is not a plain string`);
      continue;
    }
    const value = node.value;
    if (value.startsWith("./")) continue;
    if (value.startsWith("docker://")) {
      if (!/@sha256:[0-9a-f]{64}$/.test(value)) problems.push(`line ${line}: ${value}: pin the image by digest (docker://image@sha256:…) by hand`);
      continue;
    }
    const at = value.lastIndexOf("@");
    const path = at < 0 ? value : value.slice(0, at);
    const ref = at < 0 ? "" : value.slice(at + 1);
    const action = path.split("/").slice(0, 2).join("/");
    const [, valueEnd] = node.range;
    const lineEnd = text.indexOf("\n", valueEnd) < 0 ? text.length : text.indexOf("\n", valueEnd);
    const rest = text.slice(valueEnd, lineEnd);
    const commentMatch = /^\s*(?:#\s*(.*?))?\s*$/.exec(rest);
    if (commentMatch === null) {
      problems.push(`line ${line}: ${value}: write the step as a block mapping (uses: on a line of its own) to pin it`);
      continue;
    }
    const comment = commentMatch[1] || undefined;
    const pin = pinFor({ action, ref, comment, naruto });
    if (typeof pin === "string") {
      problems.push(`line ${line}: ${value}: ${pin}`);
      continue;
    }
    const quote = node.type === "QUOTE_DOUBLE" ? '"' : node.type === "QUOTE_SINGLE" ? "'" : "";
    const pinned = `${quote}${path}@${pin.sha}${quote} # ${pin.version}`;
    const current = text.slice(node.range[0], lineEnd);
    if (current === pinned) continue;
    edits.push([node.range[0], lineEnd, pinned]);
    changes.push(`line ${line}: ${current.trim()}  →  ${pinned}`);
  }
  return { edits, changes, problems };
}

function applyEdits(text, edits) {
  let out = text;
  for (const [start, end, replacement] of [...edits].sort((a, b) => b[0] - a[0])) out = out.slice(0, start) + replacement + out.slice(end);
  return out;
}

const args = parseArgs(process.argv.slice(2));
let narutoMemo;
const naruto = () => (narutoMemo ??= narutoPin(args));
const plans = args.files.map((file) => {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    fail(`cannot read ${file}: ${error.message}`);
  }
  const near = relative(process.cwd(), file);
  return { file, name: near === "" || near.startsWith("..") ? file : near, text, ...planFile({ text, naruto }) };
});

const problems = plans.flatMap((plan) => plan.problems.map((problem) => `${plan.name}: ${problem}`));
if (problems.length > 0) {
  for (const problem of problems) console.error(`pin-actions: ${problem}`);
  fail(`${problems.length} uses: cannot be pinned; no file was changed`);
}
for (const plan of plans) {
  if (plan.edits.length === 0) {
    console.log(`${plan.name}: every uses: already pinned`);
    continue;
  }
  writeFileSync(plan.file, applyEdits(plan.text, plan.edits));
  console.log(`${plan.name}: pinned ${plan.edits.length} uses:`);
  for (const change of plan.changes) console.log(`  ${change}`);
}
