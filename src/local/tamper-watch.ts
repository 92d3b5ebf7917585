/**
 * The tamper record on this machine (docs/architecture.md, src/sandbox/tamper-record.ts): taken before
 * the mission and compared after every attempt and before the review. An integration waits for
 * the comparison of every attempt that has ended, and reads nothing more itself: an agent still
 * running can move anything again right after a check, so what keeps the queue on naruto's head
 * is the queue's own compare-and-swap (from naruto's value in the ledger below).
 *
 * - naruto's own refs of the mission move only by naruto. Every `git update-ref` naruto runs goes
 *   through {@link TamperWatch.git}, which notes the value in a ledger (before it runs, so a check
 *   meanwhile accepts it). Any other value is a finding; naruto puts its own value back (a
 *   `naruto cancel` from another process, a save on top of naruto's own, is recognised).
 * - The user's refs, HEAD, git config, hooks, info and home start-up files: a change while
 *   agents ran without the sandbox is blamed on them (every attempt that ran since the last
 *   check: naruto cannot tell which); with the sandbox, agents could not reach them, and the
 *   change is reported as the user's own. They are never put back: the finding names the old
 *   value, for the user to decide. With the sandbox the user's refs are compared before the
 *   review only: a check after an attempt reads the mission's own refs, so that it costs the
 *   same however many refs other missions (and the user) have.
 */
import type { Git, GitCall } from "../git/index.ts";
import { gitText, refUpdate, updateRefs, type RefLine } from "../git/index.ts";
import { MISSION_REF_PREFIX, readMissionVersion } from "../store/index.ts";
import type { TamperFinding } from "../mission/index.ts";
import { compareRecords, createFileHashes, missionRefPatterns, recordRepository, type TamperRecord } from "../sandbox/index.ts";

export interface TamperWatch {
  /** The git to run every git of the mission through: it notes naruto's own ref writes. */
  readonly git: Git;
  attemptStarted(key: string): void;
  attemptEnded(key: string): void;
  /** naruto's value of one of its refs (null: absent), as far as the ledger knows. */
  expected(ref: string): string | null;
  /**
   * Compares with the last record; the findings say what changed, who is blamed and what naruto
   * did. Where agents run in the sandbox, no agent can reach the user's refs (a change there is
   * the user's own): they are compared only when `everything` is asked (before the review), and
   * a check after an attempt reads just the mission's refs, whatever else the repository holds.
   */
  check(options?: { readonly everything?: boolean }): Promise<TamperFinding[]>;
  /** The same when an attempt ended since the last check began (or a check waits its turn); else none, without reading. */
  checkEnded(): Promise<TamperFinding[]>;
}

export interface TamperWatchInput {
  readonly git: Git;
  readonly repoDir: string;
  readonly commonDir: string;
  readonly mission: string;
  /** naruto's HOME: the start-up files there are watched; null to leave them out. */
  readonly home: string | null;
  /** Agents run in a sandbox that keeps them out of the repository. */
  readonly sandboxed: boolean;
  readonly now: () => Date;
}

/** Options of git itself that take a separate value (`git -c k=v update-ref …`). */
const WITH_VALUE = new Set(["-c", "-C", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"]);

/**
 * Every ref a `git update-ref` call writes, with its new value (null: deleted): one, or each
 * `update`/`create`/`delete` line of a `--stdin` transaction. Empty for other calls.
 */
export function refWritesOf(call: Pick<GitCall, "args" | "input">): { ref: string; value: string | null }[] {
  const args = call.args;
  if (!args.includes("--stdin")) {
    const one = refWriteOf(args);
    return one === null ? [] : [one];
  }
  if (subcommandOf(args) !== "update-ref") return [];
  const writes: { ref: string; value: string | null }[] = [];
  for (const line of String(call.input ?? "").split("\n")) {
    const [verb, ref, value] = line.trim().split(/\s+/);
    if (ref === undefined) continue;
    if (verb === "update" || verb === "create") writes.push({ ref, value: value ?? null });
    else if (verb === "delete") writes.push({ ref, value: null });
  }
  return writes;
}

function subcommandOf(args: readonly string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (WITH_VALUE.has(arg)) i++;
    else if (!arg.startsWith("-")) return arg;
  }
  return null;
}

/** What a `git update-ref` call writes: the ref and its new value (null: deleted); null for other calls. */
export function refWriteOf(args: readonly string[]): { ref: string; value: string | null } | null {
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (WITH_VALUE.has(arg)) i++;
    else if (!arg.startsWith("-")) break;
  }
  if (args[i] !== "update-ref") return null;
  const rest: string[] = [];
  let del = false;
  for (let j = i + 1; j < args.length; j++) {
    const arg = args[j] ?? "";
    if (arg === "-m") j++;
    else if (arg === "-d") del = true;
    else if (arg === "--stdin") return null;
    else if (!arg.startsWith("-")) rest.push(arg);
  }
  const [ref, value] = rest;
  if (ref === undefined) return null;
  return { ref, value: del ? null : (value ?? null) };
}

export async function createTamperWatch(input: TamperWatchInput): Promise<TamperWatch> {
  const { repoDir, commonDir, mission } = input;
  const patterns = missionRefPatterns(mission);
  const mine = (ref: string) => patterns.exact.includes(ref) || patterns.prefixes.some((p) => ref.startsWith(p));
  // Per ref: naruto's value (null: absent), and every value it held since the current check
  // began reading (the record is read before it is compared: a write in between is naruto's).
  const ledger = new Map<string, { current: string | null; since: Set<string> }>();
  const entry = (ref: string) => {
    let e = ledger.get(ref);
    if (e === undefined) ledger.set(ref, (e = { current: null, since: new Set([""]) }));
    return e;
  };
  const pending = new Map<string, Set<string>>();
  const git: Git = async (call: GitCall) => {
    const writes = refWritesOf(call).filter((w) => mine(w.ref));
    if (writes.length === 0) return input.git(call);
    const noted = writes.map((write) => {
      const e = entry(write.ref);
      const value = write.value ?? "";
      e.since.add(value);
      const inFlight = pending.get(write.ref) ?? new Set<string>();
      pending.set(write.ref, inFlight);
      inFlight.add(value);
      return { write, e, value, inFlight };
    });
    try {
      const result = await input.git(call);
      for (const { write, e, value } of noted) {
        e.current = write.value;
        e.since.add(value);
      }
      return result;
    } finally {
      for (const { value, inFlight } of noted) inFlight.delete(value);
    }
  };
  // Without the sandbox an agent can reach the user's files through `..`: the work tree is watched too.
  // The watched files are the same few after every attempt: each is read again only when its stat data changed.
  const hashes = createFileHashes();
  const record = (userRefs?: TamperRecord["userRefs"]) =>
    recordRepository({ git: input.git, repoDir, commonDir, mission, home: input.home, worktree: !input.sandboxed, hashes, ...(userRefs ? { userRefs } : {}) });
  let last: TamperRecord = await record();
  // What is there now is naruto's (a new mission has none yet; a resumed one, its own).
  for (const [ref, oid] of Object.entries(last.missionRefs)) entry(ref).current = oid;

  const running = new Set<string>();
  let ran = new Set<string>();
  // Attempts that ended after the last check began reading.
  const unchecked = new Set<string>();
  let queue: Promise<unknown> = Promise.resolve();
  let waiting: { readonly everything: boolean; readonly result: Promise<TamperFinding[]> } | null = null;

  const check = async (everything: boolean): Promise<TamperFinding[]> => {
    unchecked.clear();
    for (const [ref, e] of ledger) e.since = new Set([e.current ?? "", ...(pending.get(ref) ?? [])]);
    // The user's refs as last read stand for themselves when no agent can reach them.
    const now = await record(input.sandboxed && !everything ? last.userRefs : undefined);
    const window = [...ran].sort();
    const at = input.now().toISOString();
    const findings: TamperFinding[] = [];
    for (const change of compareRecords(last, now)) {
      if (change.kind === "mission_ref") continue;
      const blame = input.sandboxed ? "user" : "agents";
      findings.push({ at, what: change.what, before: change.before, after: change.after, blame, attempts: blame === "user" ? [] : window, action: null });
    }
    const refs = new Set([...Object.keys(now.missionRefs), ...[...ledger.keys()].filter(mine)]);
    for (const ref of [...refs].sort()) {
      const actual = now.missionRefs[ref] ?? null;
      const e = entry(ref);
      if (e.since.has(actual ?? "") || actual === e.current || (pending.get(ref)?.has(actual ?? "") ?? false)) continue;
      if (ref === `${MISSION_REF_PREFIX}${mission}` && e.current !== null && actual !== null && (await isCancelOnTop(input.git, repoDir, e.current, actual))) {
        // `naruto cancel` from another process saved on top of naruto's own version.
        e.current = actual;
        continue;
      }
      const action = await putBack(git, repoDir, ref, e.current, actual);
      findings.push({ at, what: ref, before: e.current, after: actual, blame: "not_naruto", attempts: window, action });
    }
    // The next check compares with what this one read. Not a record read again after a put-back:
    // what an agent still running changed meanwhile would be taken for the start and never named.
    // naruto's refs as put back need none: they are compared with the ledger, not with `last`.
    last = now;
    ran = new Set(running);
    return findings;
  };

  const shared = (everything: boolean) => {
    // A check asked for while another waits its turn shares that one: it begins after both
    // were asked for, which is all either needs (its reading starts after what each waits on),
    // unless it must read more than that one will.
    if (waiting !== null && (waiting.everything || !everything)) return waiting.result;
    const result = queue.then(() => {
      if (waiting?.result === result) waiting = null;
      return check(everything);
    });
    waiting = { everything, result };
    queue = result.catch(() => undefined);
    return result;
  };

  return {
    git,
    attemptStarted(key) {
      running.add(key);
      ran.add(key);
    },
    attemptEnded(key) {
      running.delete(key);
      unchecked.add(key);
    },
    expected: (ref) => ledger.get(ref)?.current ?? null,
    check: (options) => shared(options?.everything ?? false),
    checkEnded: () => (unchecked.size > 0 || waiting !== null ? shared(false) : Promise.resolve([])),
  };
}

/** Puts naruto's value of its ref back (compare-and-swap from what it found); says what it did. */
async function putBack(git: Git, repoDir: string, ref: string, value: string | null, found: string | null): Promise<string> {
  // found null: the ref must still be absent (naruto's value null and nothing found is no tampering).
  const line: RefLine = value === null ? { verb: "delete", ref, ...(found === null ? {} : { expected: found }) } : refUpdate(ref, value, found);
  try {
    await git(updateRefs(repoDir, [line], { message: "naruto: put back (tampered)", config: ["core.hooksPath=/dev/null"] }));
    return value === null ? `naruto deleted it again` : `naruto put it back to ${value.slice(0, 12)}`;
  } catch {
    return "naruto could not put it back (it moved again)";
  }
}

/** Whether `actual` is one save on top of `ours` that cancels the mission (what `naruto cancel` writes). */
async function isCancelOnTop(git: Git, repoDir: string, ours: string, actual: string): Promise<boolean> {
  try {
    const parent = await gitText(git, { args: ["rev-parse", "--verify", "--quiet", `${actual}^1`], cwd: repoDir });
    if (parent !== ours) return false;
    const [before, after] = await Promise.all([ours, actual].map((c) => readMissionVersion(git, repoDir, c)));
    if (!before || !after) return false;
    return after.status === "cancelled" && before.status !== "cancelled" && after.seq === before.seq + 1;
  } catch {
    return false;
  }
}
