/**
 * The one reply when a mission stopped because GitHub refuses its worker branches (push-legs.ts):
 * on the mission's issue, under one marker, so a second refused push or a re-run of the job
 * updates it instead of adding another.
 */
import { issueOf, workflowChangeText } from "../../github-driver/index.ts";
import { markerFor } from "../../github/index.ts";
import type { Mission } from "../../mission/index.ts";
import type { ModeDeps } from "../deps.ts";
import type { WorkflowStop } from "./push-legs.ts";

/** The marker of the reply, one per mission. */
export function workflowStopMarker(mission: string): string {
  return markerFor(`workflow-change:${mission}`);
}

export async function replyStopped(deps: ModeDeps, mission: Mission, stop: WorkflowStop): Promise<void> {
  const issue = issueOf(mission);
  if (issue === null) return;
  await deps.github.upsertComment({
    issue,
    marker: workflowStopMarker(mission.id),
    body: workflowChangeText({ mission, branch: stop.branch, path: stop.path }),
    ...(deps.runUrl ? { link: deps.runUrl } : {}),
  });
}
