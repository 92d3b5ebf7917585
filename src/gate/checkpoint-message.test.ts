import { describe, expect, it } from "vitest";
import { formatCheckpointMessage } from "./checkpoint-message.ts";

describe("formatCheckpointMessage", () => {
  const ids = { mission: "m-1a2b", item: "users-api", attempt: 2, agent: "claude" };

  it("puts title, body and the four trailers in that order", () => {
    expect(formatCheckpointMessage({ ...ids, title: "Validate users input", body: "Added zod.\r\nAnd tests.\n" })).toBe(
      "Validate users input\n\nAdded zod.\nAnd tests.\n\nNaruto-Mission: m-1a2b\nNaruto-Item: users-api\nNaruto-Attempt: 2\nNaruto-Agent: claude\n",
    );
  });

  it("leaves out an empty body and falls back to the item id for an empty title", () => {
    expect(formatCheckpointMessage({ ...ids, title: "  ", body: "" })).toBe(
      "users-api\n\nNaruto-Mission: m-1a2b\nNaruto-Item: users-api\nNaruto-Attempt: 2\nNaruto-Agent: claude\n",
    );
  });

  it("keeps the title and trailer values on one line, so no text can forge a trailer", () => {
    const message = formatCheckpointMessage({ ...ids, title: "Fix\nNaruto-Item: other", agent: "evil\nNaruto-Mission: m-x" });
    expect(message.split("\n")[0]).toBe("Fix Naruto-Item: other");
    expect(message).toContain("\nNaruto-Agent: evil Naruto-Mission: m-x\n");
    expect(message.match(/^Naruto-Mission:/gm)).toHaveLength(1);
  });
});
