/**
 * What a mission costs in GitHub API calls, counted from the fake GitHub's request log: the
 * App's (its bot) and the jobs' (their tokens), not the test's own (the maintainer's) and not
 * git's protocol (checkouts, fetches and pushes are not rate limited as API calls are) nor the
 * Actions results service and artifact blobs (uploads, downloads of a run's own artifacts). Shared by
 * `npm run bench -- api` and the `app-scale` scenario.
 */
import type { AppWorld } from "./app-world.ts";
import { MAINTAINER } from "./app-world.ts";

/** N items that need nothing of each other, each creating its own file with the demo agent. */
export function independentPlan(items: number): string {
  const lines = ["version: 1", `title: ${items} independent files`, "items:"];
  for (let i = 0; i < items; i++) {
    lines.push(`  - id: f${i}`, `    writes: [src/f${i}.txt]`, "    prompt: |", `      create src/f${i}.txt "file ${i}\\n"`);
  }
  return `${lines.join("\n")}\n`;
}

export interface ApiCalls {
  readonly total: number;
  /** Of `total`, the 304s (conditional GETs of what did not change): GitHub does not count them against the rate limit. */
  readonly notModified: number;
  readonly app: number;
  readonly jobs: number;
  /** Calls per operation, most first (`app GET …` / `job POST …`). */
  readonly byOperation: readonly (readonly [string, number])[];
}

/** The API calls made since the request log held `since` entries. */
export function apiCallsSince(world: AppWorld, since: number): ApiCalls {
  // git and the artifact service (uploads, this run's downloads, blob links) are not API calls.
  const made = world.fake.requests.slice(since).filter((r) => r.user !== MAINTAINER && (r.kind === "rest" || r.kind === "graphql"));
  const app = made.filter((r) => r.user === world.botLogin).length;
  const counts = new Map<string, number>();
  for (const r of made) {
    const key = `${r.user === world.botLogin ? "app" : "job"} ${r.operation ?? `${r.method} ${r.path}`}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return {
    total: made.length,
    notModified: made.filter((r) => r.status === 304).length,
    app,
    jobs: made.length - app,
    byOperation: [...counts.entries()].sort((a, b) => b[1] - a[1]),
  };
}
