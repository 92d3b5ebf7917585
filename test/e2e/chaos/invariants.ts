/**
 * What must hold once a mission of the fault campaign settled, read from the fake GitHub's state
 * (its refs, commits, comments, pull requests and dispatch log), not from naruto's own account:
 * the mission document is read only for which items it calls integrated, and for its status.
 *
 * Every check returns what it found wrong, as sentences; none means the seed passed.
 */
import { trackingMarker, verdictMarker } from "../../../src/report/index.ts";
import { shortSha } from "../../../src/report/format.ts";
import type { Mission } from "../../../src/mission/document.ts";
import { isMissionTerminal } from "../../../src/mission/status.ts";
import { SWEEP_MEMORY_REF } from "../../../src/action/modes/sweep-memory.ts";
import { REPO, type AppWorld } from "../support/app-world.ts";

/** The file the demo agent writes for item `id` of the campaign's plan. */
export const fileOf = (item: string) => `src/${item}.txt`;

export async function violations(world: AppWorld, id: string, items: readonly string[]): Promise<string[]> {
  const mission = await world.mission(id);
  if (mission === null) return [`mission ${id} was never stored`];
  return [
    ...terminal(mission),
    ...(await queueCommits(world, mission)),
    ...(await comments(world, mission)),
    ...pulls(world, mission),
    ...dispatches(world, id),
    ...(await refs(world, id, items)),
  ];
}

/** Ended, and every item that did not make it says why. */
function terminal(m: Mission): string[] {
  if (!isMissionTerminal(m.status)) return [`the mission did not end: it is ${m.status} with items ${m.items.map((i) => `${i.id} ${i.status}`).join(", ")}`];
  const found: string[] = [];
  for (const i of m.items) if (i.status !== "integrated" && !i.reason) found.push(`item ${i.id} ended ${i.status} without a reason`);
  if (m.status === "done" && m.verdict === null) found.push("the mission is done without a verdict");
  return found;
}

/**
 * The queue branch on GitHub: its head is the one the mission names; every item the mission
 * calls integrated has exactly one commit on it, and that commit adds exactly its file; no
 * commit carries an item that is not integrated.
 */
async function queueCommits(world: AppWorld, m: Mission): Promise<string[]> {
  const found: string[] = [];
  const queue = `refs/heads/${m.queue.branch}`;
  const head = await world.bareGit("rev-parse", "--verify", "--quiet", queue).catch(() => "");
  if (head === "") return m.items.some((i) => i.status === "integrated") ? [`the queue branch ${m.queue.branch} is not on GitHub`] : [];
  if (head !== m.queue.head) found.push(`the queue branch on GitHub is at ${head.slice(0, 12)}, the mission says ${m.queue.head.slice(0, 12)}`);
  const log = await world.bareGit("log", "--format=%H%x01%(trailers:key=Naruto-Item,valueonly,separator=%x02)", `${m.base.commit}..${queue}`);
  const byItem = new Map<string, string[]>();
  for (const line of log.split("\n").filter((l) => l !== "")) {
    const [commit = "", trailer = ""] = line.split("\x01");
    const item = trailer.trim();
    if (item === "") {
      found.push(`commit ${commit.slice(0, 12)} on the queue names no item`);
      continue;
    }
    byItem.set(item, [...(byItem.get(item) ?? []), commit]);
    const changed = (await world.bareGit("diff-tree", "--no-commit-id", "--name-status", "-r", commit)).split("\n").filter((l) => l !== "");
    const want = `A\t${fileOf(item)}`;
    if (changed.length !== 1 || changed[0] !== want)
      found.push(`commit ${commit.slice(0, 12)} of item ${item} changes ${JSON.stringify(changed)}, not only ${JSON.stringify(want)}`);
  }
  for (const i of m.items) {
    const commits = byItem.get(i.id) ?? [];
    if (i.status === "integrated" && commits.length !== 1) found.push(`item ${i.id} is integrated with ${commits.length} commits on the queue`);
    if (i.status !== "integrated" && commits.length > 0) found.push(`item ${i.id} is ${i.status}, yet the queue holds ${commits.length} commit(s) of it`);
  }
  return found;
}

/**
 * One tracking comment on the issue; at most one verdict, exactly one when the mission is done,
 * stating the mission's verdict about what GitHub holds: the queue head on GitHub, and as many
 * integrated items as the queue has items' commits.
 */
async function comments(world: AppWorld, m: Mission): Promise<string[]> {
  const found: string[] = [];
  const tracking = world.comments().filter((c) => c.body.startsWith(trackingMarker(m.id)));
  if (tracking.length !== 1) found.push(`${tracking.length} tracking comments (${tracking.map((c) => `#${c.issueNumber} by ${c.user.login}`).join(", ")})`);
  const verdicts = world.comments().filter((c) => c.body.startsWith(verdictMarker(m.id)));
  if (verdicts.length > 1) found.push(`${verdicts.length} verdict comments`);
  if (m.status === "done" && verdicts.length === 0) found.push("the mission is done, and no verdict comment was posted");
  const verdict = verdicts[0];
  if (verdict === undefined || m.verdict === null) return found;
  if (!verdict.body.includes(`naruto verdict: ${m.verdict.verdict}`))
    found.push(`the verdict comment does not say the mission's verdict (${m.verdict.verdict})`);
  const head = await world.bareGit("rev-parse", "--verify", "--quiet", `refs/heads/${m.queue.branch}`).catch(() => m.base.commit);
  if (!verdict.body.includes(shortSha(head))) found.push(`the verdict comment does not name the queue head on GitHub (${shortSha(head)})`);
  const onQueue = (await world.bareGit("log", "--format=%(trailers:key=Naruto-Item,valueonly)", `${m.base.commit}..${head}`))
    .split("\n")
    .filter((l) => l.trim() !== "");
  const said = `${new Set(onQueue).size} of ${m.items.length} integrated`;
  if (!verdict.body.includes(said)) found.push(`the verdict comment does not say "${said}", which the queue on GitHub holds`);
  return found;
}

/** At most one queue pull request; one when anything was integrated. */
function pulls(world: AppWorld, m: Mission): string[] {
  const open = [...world.fake.repo(REPO).pulls.values()].filter((p) => p.headRef === m.queue.branch);
  if (open.length > 1) return [`${open.length} queue pull requests (#${open.map((p) => p.number).join(", #")})`];
  if (open.length === 0 && m.status === "done" && m.items.some((i) => i.status === "integrated")) return ["no queue pull request"];
  return [];
}

/** No item's attempt is in the matrix of two work runs. */
function dispatches(world: AppWorld, id: string): string[] {
  const seen = new Map<string, number>();
  const found: string[] = [];
  for (const d of world.fake.dispatches) {
    if (d.inputs["mission"] !== id || d.inputs["phase"] !== "work") continue;
    let legs: unknown;
    try {
      legs = JSON.parse(d.inputs["items"] ?? "[]");
    } catch {
      found.push(`run ${d.runId} was dispatched with items that are not JSON: ${d.inputs["items"]}`);
      continue;
    }
    for (const leg of Array.isArray(legs) ? legs : []) {
      const key = `${String((leg as { item?: unknown }).item)}#${String((leg as { attempt?: unknown }).attempt)}`;
      const before = seen.get(key);
      if (before !== undefined) found.push(`attempt ${key} was dispatched twice (runs ${before} and ${d.runId})`);
      else seen.set(key, d.runId);
    }
  }
  return found;
}

/**
 * Refs naruto may leave on GitHub for a mission (docs/action.md): the queue, the state and its
 * index by issue, worker branches of the plan's items, branches keeping unfinished attempts'
 * work, the sweep's record of ended missions; GitHub's own pull refs; and the default branch.
 */
async function refs(world: AppWorld, id: string, items: readonly string[]): Promise<string[]> {
  const allowed = new Set([
    `refs/heads/main`,
    SWEEP_MEMORY_REF,
    `refs/heads/naruto/${id}`,
    `refs/heads/naruto-state/${id}`,
    ...items.map((i) => `refs/heads/naruto/${id}--${i}`),
  ]);
  const all = (await world.bareGit("for-each-ref", "--format=%(refname)")).split("\n").filter((r) => r !== "");
  const stray = all.filter(
    (r) =>
      !allowed.has(r) &&
      !/^refs\/pull\/\d+\/(head|merge)$/.test(r) &&
      !new RegExp(`^refs/heads/naruto-attempts/${id}/[^/]+/\\d+$`).test(r) &&
      !new RegExp(`^refs/heads/naruto-state/by-issue/\\d+/${id}$`).test(r),
  );
  return stray.length === 0 ? [] : [`refs outside the documented ones: ${stray.join(", ")}`];
}
