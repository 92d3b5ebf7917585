import { describe, expect, it } from "vitest";
import { readWorkflowCommands } from "../../test/support/actions-sim/file-commands.ts";
import { createRedactor } from "../redact/index.ts";
import { disarmCommands, quoteUntrusted, safeJobLog } from "./job-log.ts";
import { recordingLog } from "./log.ts";

// Read back as the runner reads a step's output (the simulator's reader, made faithful to it).
const HOSTILE: readonly [string, string][] = [
  ["after a lone \\r", "50%\r::add-mask::m1"],
  ["after \\r\\n", "x\r\n::error::e1"],
  ["at the start", "::set-output name=o::v"],
  ["indented", "  \t::warning::w1"],
  ["in upper case", "\r::ADD-MASK::m2"],
  ["in the old form, mid-line", "see ##[add-mask]m3 and ###[error]e2"],
  ["stop-commands and a command after it", "\r::stop-commands::t\r::t::\r::add-mask::m4"],
  ["after a vertical tab and a form feed", "\v\f::error::e3"],
];

describe("quoteUntrusted", () => {
  it.each(HOSTILE)("leaves the runner nothing to act on: a command %s", (_, output) => {
    const quoted = quoteUntrusted(output);
    expect(readWorkflowCommands(`${quoted}\n`).commands).toEqual([]);
    expect(readWorkflowCommands(`${output}\n`).commands).not.toEqual([]);
  });

  it("quotes every line the runner will see, with \\r as a line break, and drops one final break", () => {
    expect(quoteUntrusted("ok\r::add-mask::x\r\nlast\n")).toBe("  | ok\n  | ::add-mask::x\n  | last");
    expect(quoteUntrusted("\n")).toBe("");
  });
});

describe("disarmCommands", () => {
  it.each(HOSTILE)("leaves the runner nothing to act on: a command %s", (_, output) => {
    expect(readWorkflowCommands(`${disarmCommands(output)}\n`).commands).toEqual([]);
  });

  it("leaves naruto's own lines as they are", () => {
    expect(disarmCommands("naruto: queue of m-1: abc → def, 2 checkpoint(s)\n  pushed: 1")).toBe(
      "naruto: queue of m-1: abc → def, 2 checkpoint(s)\n  pushed: 1",
    );
  });
});

describe("safeJobLog", () => {
  it("redacts and disarms every message and the summary", () => {
    const inner = recordingLog();
    const log = safeJobLog(inner, createRedactor({ secrets: ["s3cret-value-1"] }));
    log.info("reason: s3cret-value-1\r::add-mask::x");
    log.warning("ghs_AqjDL59IDmXyTE1mbK5cE0GligaLitf45FKH");
    void log.summary("| s3cret-value-1 |");
    expect(inner.lines).toEqual(["reason: [redacted]\n| ::add-mask::x", "warning: [redacted]"]);
    expect(inner.summaries).toEqual(["| [redacted] |"]);
  });
});
