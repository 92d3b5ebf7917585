/**
 * A base that moved while the mission worked (issue 37's gap): `main` moves while the mission is
 * being reviewed, its push arrives while the mission cannot be refreshed (a running or reviewing
 * mission's queue is still moving), and no push comes after the end. With `queue.refresh: on_push`
 * naruto asks for the refresh itself when the mission ends, once, by the same lease and run a push
 * takes, and the tracking comment says so; the queue ends on the new main, verified and reviewed
 * again. With `manual` (the default) nothing is refreshed, and the tracking comment and the
 * verdict say that the base moved and name `/naruto refresh`.
 */
import { missionIdFor } from "../../../src/github-driver/mission-id.ts";
import { trackingMarker, verdictMarker } from "../../../src/report/index.ts";
import { APP_CONFIG, ONE_ITEM_PLAN, checkRefreshedOnto, withPlan } from "../support/app-checks.ts";
import { MAINTAINER, REPO, withAppWorld, type AppWorld } from "../support/app-world.ts";
import { pushFile } from "./refresh-on-push.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const QUEUE = `queue:
  verify: "test ! -e BROKEN"
`;
const MANUAL = `${APP_CONFIG}${QUEUE}`;
const ON_PUSH = `${MANUAL}  refresh: on_push
`;

const bodyOf = (world: AppWorld, marker: string): string => world.comments().find((c) => c.body.startsWith(marker))?.body ?? "";

export const refreshAtEnd: Scenario = {
  name: "refresh-at-end",
  run: async () => {
    // Set per mission: main moves when that mission's review job starts (the push finds it reviewing).
    let whileReviewed: { mission: string; push: () => Promise<void> } | null = null;
    // The tracking comment as the refresh run found it when its queue job started.
    let trackingAtRefresh = "";
    let refreshing: string | null = null;
    let live: AppWorld | null = null;
    await withAppWorld(
      {
        config: ON_PUSH,
        pushWebhooks: true,
        issues: [
          { title: "Write a guide", body: "Please.", user: MAINTAINER },
          { title: "Write another guide", body: "Please.", user: MAINTAINER },
        ],
        beforeJob: async (info) => {
          const mission = String(info.trigger.inputs["mission"]);
          const phase = info.trigger.inputs["phase"];
          if (phase === "refresh" && info.job.startsWith("queue") && mission === refreshing) {
            trackingAtRefresh = live === null ? "" : bodyOf(live, trackingMarker(mission));
            refreshing = null;
          }
          const due = whileReviewed;
          if (phase !== "review" || !info.job.startsWith("review") || due?.mission !== mission) return;
          whileReviewed = null;
          await due.push();
        },
      },
      async (w) => {
        live = w;
        const refreshes = (id: string) => w.fake.dispatches.filter((d) => d.inputs["mission"] === id && d.inputs["phase"] === "refresh");

        // on_push: main moves while the mission is reviewed; its push is too early to refresh it.
        const startedOn = await w.bareGit("rev-parse", "refs/heads/main");
        const first = missionIdFor(REPO, (await w.comment({ as: MAINTAINER, body: withPlan("/naruto Write a guide", ONE_ITEM_PLAN), issue: 1 })).commentId);
        let moved = "";
        whileReviewed = {
          mission: first,
          push: async () => {
            moved = await pushFile(w, "main", "NEWS.md", "# News\n");
            checkEqual(refreshes(first).length, 0, "refresh runs asked for by main's push while the mission is reviewed", w.runs);
          },
        };
        refreshing = first;
        await w.settle();
        check(moved !== "", "main moved while the first mission was reviewed", w.runs);
        checkEqual(refreshes(first).length, 1, "refresh runs naruto asked for when the mission ended on a base that had moved", w.runs);
        check(
          trackingAtRefresh.includes("**Base moved:**") && trackingAtRefresh.includes("replaying the queue onto it"),
          `the tracking comment says the base moved and the queue is being refreshed:\n${trackingAtRefresh}`,
          w.runs,
        );
        const { mission: after } = await checkRefreshedOnto(w, first, { from: startedOn, onto: moved });
        checkEqual(after.queue.refresh_requested, null, "no refresh under way at the end", w.runs);
        check(!bodyOf(w, trackingMarker(first)).includes("**Base moved:**"), "the tracking comment, refreshed, no longer says the base moved", w.runs);

        // manual (the config on main again): the same, and nothing is refreshed; the comments say how.
        const manual = await pushFile(w, "main", ".github/naruto.yml", MANUAL);
        const second = missionIdFor(
          REPO,
          (await w.comment({ as: MAINTAINER, body: withPlan("/naruto Write another guide", ONE_ITEM_PLAN), issue: 2 })).commentId,
        );
        let movedAgain = "";
        whileReviewed = { mission: second, push: async () => void (movedAgain = await pushFile(w, "main", "NEWS.md", "# News\n\nMore.\n")) };
        await w.settle();
        check(movedAgain !== "", "main moved while the second mission was reviewed", w.runs);
        const ended = await w.mission(second);
        checkEqual([ended?.status, ended?.verdict?.verdict, ended?.base.commit], ["done", "approve", manual], "the second mission, left on its base", w.runs);
        checkEqual(refreshes(second).length, 0, "refresh runs with queue.refresh manual", w.runs);
        checkEqual(refreshes(first).length, 1, "refresh runs of the first mission in all", w.runs);
        for (const [what, marker] of [
          ["tracking comment", trackingMarker(second)],
          ["verdict", verdictMarker(second)],
        ] as const) {
          const body = bodyOf(w, marker);
          check(
            body.includes("**Base moved:**") && body.includes(movedAgain.slice(0, 7)) && body.includes("/naruto refresh"),
            `the ${what} says the base moved and names /naruto refresh:\n${body}`,
            w.runs,
          );
        }
        for (const r of w.runs)
          for (const j of r.jobs) check(j.result === "success" || j.result === "skipped", `${j.name} of run ${r.id}: ${j.result}`, w.runs);
        w.fake.assertNoViolations();
      },
    );
  },
};
