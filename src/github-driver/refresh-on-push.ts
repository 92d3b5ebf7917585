/**
 * Refresh on push (issue 37): with `queue.refresh: on_push`, a push to a branch that finished
 * missions are based on replays each one's queue onto it, as `/naruto refresh` would, without a
 * comment. The App calls this for every `push` webhook, so the common case costs little:
 *
 * - a deleted branch, a tag, naruto's own branches (`naruto/…` queue and worker branches,
 *   `naruto-state/…`): nothing, no request;
 * - any other branch: one request (the open pull requests into it, 100 a page); none from a
 *   queue branch (`naruto/<mission>`) of this repository: nothing more. The open queue pull
 *   requests name the missions that could be refreshed, so no push lists every mission the
 *   repository ever had;
 * - with queue pull requests: the config at the pushed commit (one request), then per mission its
 *   state (one or two), and for a finished one the base branch's head (one), the refresh lease
 *   (a state save, three) and the dispatch (one).
 *
 * Only finished (`done`) missions are refreshed on a push. A running or reviewing mission's queue
 * is still moving: its integrate runs and a refresh run both move the queue branch with a lease
 * on the head they read, so each would make the other's work void (the refresh is refused when
 * the queue moved, the integrate leaves its checkpoints waiting) and a busy base would keep both
 * redoing work. Such a mission is caught up when it finishes (moved-base.ts: the publish job that
 * records its verdict reads the base branch and asks for the refresh itself), or by `/naruto refresh`.
 */
import type { Mission } from "../mission/index.ts";
import type { DriverDeps } from "./deps.ts";
import { requestRefresh, type RefreshRequest } from "./refresh.ts";
import { readConfigAt } from "./settings.ts";

const QUEUE_BRANCH = /^naruto\/(m-[a-z0-9]{4,32})$/;
/** naruto's own branches: queue, worker and state branches are never a mission's base. */
const OWN_BRANCH = /^naruto(-state)?\//;

/** What a `push` webhook says that matters here. */
export interface PushEvent {
  /** `refs/heads/main`; tags are `refs/tags/…`. */
  readonly ref: string;
  /** The pushed commit (all zeros when deleted). */
  readonly after: string;
  readonly deleted: boolean;
}

export type PushOutcome =
  | { readonly kind: "ignored"; readonly reason: string }
  | {
      readonly kind: "handled";
      readonly missions: readonly { readonly id: string; readonly outcome: RefreshRequest["kind"] | "not_finished"; readonly message: string }[];
    };

/** The branch a push may refresh missions of, or why it cannot (no request needed to tell). */
export function pushedBase(push: PushEvent): { readonly branch: string } | { readonly reason: string } {
  if (push.deleted) return { reason: "the branch was deleted" };
  if (!push.ref.startsWith("refs/heads/")) return { reason: `${push.ref} is not a branch` };
  const branch = push.ref.slice("refs/heads/".length);
  if (OWN_BRANCH.test(branch)) return { reason: `${branch} is naruto's own branch` };
  return { branch };
}

/** Refreshes the finished missions based on the pushed branch, when the config there opts in. */
export async function refreshOnPush(deps: DriverDeps & { readonly configPath: string }, push: PushEvent): Promise<PushOutcome> {
  const base = pushedBase(push);
  if ("reason" in base) return { kind: "ignored", reason: base.reason };
  const { branch } = base;
  const ids = (await deps.github.listPullRequests({ base: branch })).flatMap((p) => QUEUE_BRANCH.exec(p.head)?.[1] ?? []);
  if (ids.length === 0) return { kind: "ignored", reason: `no queue pull request is open into ${branch}` };
  // The config as it is on the branch now: the one a refreshed queue stands on.
  const loaded = await readConfigAt(deps.github, deps.configPath, push.after);
  if (!loaded.ok) return { kind: "ignored", reason: `${deps.configPath} at ${push.after.slice(0, 12)} is not valid: nothing is refreshed on its own` };
  if (loaded.config.queue.refresh !== "on_push") return { kind: "ignored", reason: `queue.refresh is ${loaded.config.queue.refresh} on ${branch}` };
  const missions: Extract<PushOutcome, { kind: "handled" }>["missions"][number][] = [];
  for (const id of ids) {
    const mission: Mission | null = (await deps.store.load(id).catch(() => null))?.mission ?? null;
    // A branch named like a queue branch with no mission behind it, or one based elsewhere.
    if (mission === null || mission.base.ref !== branch) continue;
    if (mission.status !== "done") {
      missions.push({ id, outcome: "not_finished", message: `mission ${id} is ${mission.status}: it is refreshed once it is done` });
      continue;
    }
    const asked = await requestRefresh(deps, mission, { handover: false });
    missions.push({ id, outcome: asked.kind, message: asked.message });
  }
  return { kind: "handled", missions };
}
