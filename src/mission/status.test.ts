import { describe, expect, it } from "vitest";
import {
  isFailure,
  isFinal,
  isMissionTerminal,
  isRunning,
  isTerminal,
  ITEM_STATUSES,
  MISSION_STATUSES,
  type ItemStatus,
  type MissionStatus,
} from "./status.ts";

describe("item statuses", () => {
  // status, failure, terminal, final with attempts left, final without, running
  const table: [ItemStatus, boolean, boolean, boolean, boolean, boolean][] = [
    ["pending", false, false, false, false, false],
    ["ready", false, false, false, false, false],
    ["running", false, false, false, false, true],
    ["checkpointed", false, false, false, false, false],
    ["integrated", false, true, true, true, false],
    ["failed", true, true, false, true, false],
    ["conflicted", true, true, false, true, false],
    ["out_of_scope", true, true, false, true, false],
    ["timed_out", true, true, false, true, false],
    ["skipped", false, true, true, true, false],
    ["cancelled", false, true, true, true, false],
    ["tampered", false, true, true, true, false],
  ];

  it("lists every status once", () => {
    expect(table.map(([status]) => status)).toEqual([...ITEM_STATUSES]);
  });

  it.each(table)("%s", (status, failure, terminal, finalWithAttempts, finalWithout, running) => {
    expect(isFailure(status)).toBe(failure);
    expect(isTerminal(status)).toBe(terminal);
    expect(isFinal(status, 1)).toBe(finalWithAttempts);
    expect(isFinal(status, 0)).toBe(finalWithout);
    expect(isRunning(status)).toBe(running);
  });
});

describe("mission statuses", () => {
  const table: [MissionStatus, boolean][] = [
    ["planning", false],
    ["awaiting_approval", false],
    ["running", false],
    ["reviewing", false],
    ["done", true],
    ["failed", true],
    ["cancelled", true],
  ];

  it("lists every status once", () => {
    expect(table.map(([status]) => status)).toEqual([...MISSION_STATUSES]);
  });

  it.each(table)("%s → terminal: %s", (status, terminal) => {
    expect(isMissionTerminal(status)).toBe(terminal);
  });
});
