/** The mission's public face: statuses, the scheduling policy and its simulation. */
export * from "./status.ts";
export * from "./scheduler.ts";
export * from "./simulate.ts";
