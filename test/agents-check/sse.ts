/** Reading what a scripted model server streams, as the CLIs do: server-sent events. */
import { expect } from "vitest";

export interface SseEvent {
  /** The `event:` line ("" when the stream names none, as Gemini's). */
  readonly event: string;
  readonly data: Record<string, unknown>;
}

/** The events of an answer that must be an event stream, each `data:` parsed as JSON. */
export async function readSse(response: Response): Promise<SseEvent[]> {
  expect(response.headers.get("content-type")).toBe("text/event-stream");
  return (await response.text())
    .split("\n\n")
    .filter((chunk) => chunk.trim() !== "")
    .map((chunk) => {
      const lines = chunk.split("\n");
      const event = lines.find((l) => l.startsWith("event: "))?.slice("event: ".length) ?? "";
      const data = lines.find((l) => l.startsWith("data: "))?.slice("data: ".length) ?? "null";
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}
