/**
 * Every end-to-end scenario (README, "naruto run --json", issue 6 "Tests"), in the order `npm run e2e` runs
 * them: the fake GitHub, the Actions simulator, the workflow template and the bundled Action.
 */
import { actionNoBarrier } from "./action-no-barrier.ts";
import { appFixReview } from "./app-fix-review.ts";
import { appForkReview } from "./app-fork-review.ts";
import { appMission } from "./app-mission.ts";
import { appIntegrateInFlight } from "./app-integrate-in-flight.ts";
import { appNoBarrier } from "./app-no-barrier.ts";
import { appScale } from "./app-scale.ts";
import { appPlanApprove } from "./app-plan-approve.ts";
import { appRedelivery } from "./app-redelivery.ts";
import { appRefusals } from "./app-refusals.ts";
import { appRestart } from "./app-restart.ts";
import { appWhoMayInstruct } from "./app-who-may-instruct.ts";
import { appWorkflowRefusal } from "./app-workflow-refusal.ts";
import { badArtifacts } from "./bad-artifacts.ts";
import { chaosInvariants } from "./chaos-invariants.ts";
import { defaultBranchWorkflowChange } from "./default-branch-workflow-change.ts";
import { ghesDispatch } from "./ghes-dispatch.ts";
import { resultCi } from "./result-ci.ts";
import { runnerQuota } from "./runner-quota.ts";
import { forgedLegQueue, forgedLegSibling } from "./forged-leg.ts";
import { hostileAgents } from "./hostile-agents.ts";
import { initAgents } from "./init-agents.ts";
import { hostileSandboxed } from "./hostile-sandboxed.ts";
import { hostileVerify } from "./hostile-verify.ts";
import { refreshAfterBaseMoves } from "./refresh-after-base-moves.ts";
import { refreshAtEnd } from "./refresh-at-end.ts";
import { refreshOnPush } from "./refresh-on-push.ts";
import { lingerVerify } from "./linger-verify.ts";
import { scheduledMission } from "./scheduled-mission.ts";
import type { Scenario } from "./scenario.ts";
import { tamperedBundle } from "./tampered-bundle.ts";
import { tamperedQueue } from "./tampered-queue.ts";
import { wholeMission } from "./whole-mission.ts";

export type { Scenario } from "./scenario.ts";

export const SCENARIOS: readonly Scenario[] = [
  wholeMission,
  hostileAgents,
  hostileSandboxed,
  hostileVerify,
  tamperedBundle,
  tamperedQueue,
  forgedLegQueue,
  forgedLegSibling,
  lingerVerify,
  badArtifacts,
  scheduledMission,
  actionNoBarrier,
  appMission,
  appPlanApprove,
  appRefusals,
  appRedelivery,
  appRestart,
  appFixReview,
  appForkReview,
  appWhoMayInstruct,
  appWorkflowRefusal,
  appNoBarrier,
  appIntegrateInFlight,
  appScale,
  refreshAfterBaseMoves,
  refreshOnPush,
  refreshAtEnd,
  ghesDispatch,
  runnerQuota,
  resultCi,
  defaultBranchWorkflowChange,
  chaosInvariants,
  ...initAgents,
];
