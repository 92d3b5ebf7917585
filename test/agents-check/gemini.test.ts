import { afterEach, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gemini } from "../../scripts/agents-check/gemini.ts";
import { startGeminiServer } from "../../scripts/agents-check/gemini-server.ts";
import type { ModelServer, Scenario } from "../../scripts/agents-check/types.ts";
import { readSse } from "./sse.ts";

// The scripted Gemini API server of `npm run agents-check`, spoken to as Gemini CLI 0.61.0 does
// (requests recorded from the real CLI, trimmed): the session context with the workspace
// directory and the prompt as user turns, the router's JSON question on `generateContent`, the
// model's turns on `streamGenerateContent?alt=sse`, every earlier call and its functionResponse
// in `contents`.
const SCENARIO: Scenario = {
  match: "[agents-check:demo]",
  steps: [{ write: { path: "notes/a.txt", content: "A\nB\n" } }, { shell: "git commit -qam x" }, { say: "all done" }],
  usage: { input: 120, output: 7, cacheRead: 30 },
};

const SESSION_CONTEXT =
  "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nMy operating system is: linux\n" +
  "The project's temporary directory is: /w/home/.gemini/tmp/work\n- **Workspace Directories:**\n  - /w/work\n- **Directory Structure:**\n\n/w/work/\n└───README.md\n</session_context>";

function contents(options: { prompt: string; answered: number }) {
  const list: unknown[] = [
    { role: "user", parts: [{ text: SESSION_CONTEXT }] },
    { role: "user", parts: [{ text: `${options.prompt}\n\n\nCarry out the task given on standard input.` }] },
  ];
  for (let n = 0; n < options.answered; n++) {
    list.push({
      role: "model",
      parts: [{ functionCall: { id: `c${n}`, name: "write_file", args: {} }, thoughtSignature: "skip_thought_signature_validator" }],
    });
    list.push({ role: "user", parts: [{ functionResponse: { id: `c${n}`, name: "write_file", response: { output: "ok" } } }] });
  }
  return list;
}

/** The two routers 0.61.0 may ask (numerical for Gemini 3 models, else the classifier). */
const ROUTER_SCHEMAS = [
  {
    name: "numerical",
    schema: {
      type: "OBJECT",
      properties: { complexity_reasoning: { type: "STRING" }, complexity_score: { type: "INTEGER" } },
      required: ["complexity_reasoning", "complexity_score"],
    },
    answer: { complexity_reasoning: "scripted", complexity_score: 1 },
  },
  {
    name: "classifier",
    schema: {
      type: "object",
      properties: { reasoning: { type: "string" }, model_choice: { type: "string", enum: ["flash", "pro"] } },
      required: ["reasoning", "model_choice"],
    },
    answer: { reasoning: "scripted", model_choice: "flash" },
  },
];

let server: ModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function post(path: string, body: unknown): Promise<Response> {
  server ??= await startGeminiServer([SCENARIO]);
  return fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

/** The one `data:` event of a model turn. */
async function turn(
  answered: number,
  prompt = `# Task\n\nFollow the scripted scenario ${SCENARIO.match}.`,
): Promise<{ candidates: { content: { parts: Record<string, unknown>[] } }[]; usageMetadata: unknown; modelVersion: string }> {
  const response = await post("/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse", {
    contents: contents({ prompt, answered }),
    generationConfig: { temperature: 1 },
  });
  expect(response.status).toBe(200);
  const events = await readSse(response);
  expect(events).toHaveLength(1);
  return events[0]!.data as unknown as Awaited<ReturnType<typeof turn>>;
}

describe("scripted Gemini API server", () => {
  it.each(ROUTER_SCHEMAS)("answers the $name router with its schema's JSON and no tokens", async ({ schema, answer }) => {
    const response = await post("/v1beta/models/gemini-3.5-flash-lite:generateContent", {
      contents: contents({ prompt: "anything", answered: 0 }),
      generationConfig: { responseMimeType: "application/json", responseJsonSchema: schema },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { candidates: { content: { parts: { text: string }[] } }[]; usageMetadata: unknown; modelVersion: string };
    expect(JSON.parse(body.candidates[0]!.content.parts[0]!.text)).toEqual(answer);
    expect(body.usageMetadata).toEqual({ promptTokenCount: 0, candidatesTokenCount: 0, totalTokenCount: 0 });
    expect(body.modelVersion).toBe("gemini-3.5-flash-lite");
  });

  it("plays the scenario's steps in order, counting the functionResponses, with its usage on every turn", async () => {
    const first = await turn(0);
    expect(first.candidates[0]!.content.parts).toEqual([
      { functionCall: { name: "write_file", args: { file_path: "/w/work/notes/a.txt", content: "A\nB\n" } } },
    ]);
    expect(first.usageMetadata).toEqual({ promptTokenCount: 150, candidatesTokenCount: 7, cachedContentTokenCount: 30, totalTokenCount: 157 });
    expect(first.modelVersion).toBe("gemini-3.8-flash");
    expect((await turn(1)).candidates[0]!.content.parts).toEqual([
      { functionCall: { name: "run_shell_command", args: { command: "git commit -qam x", description: "scripted step" } } },
    ]);
    expect((await turn(2)).candidates[0]!.content.parts).toEqual([{ text: "all done" }]);
  });

  it("resolves a write's path against the workspace directory, `..` included", async () => {
    server = await startGeminiServer([{ ...SCENARIO, steps: [{ write: { path: "../outside.txt", content: "x" } }] }]);
    expect((await turn(0)).candidates[0]!.content.parts[0]).toMatchObject({ functionCall: { args: { file_path: "/w/outside.txt" } } });
  });

  it("answers a prompt no scenario matches with an API error the CLI shows", async () => {
    const response = await post("/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse", {
      contents: contents({ prompt: "something else", answered: 0 }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { code: 400, message: expect.stringContaining("no scenario matches the prompt"), status: "INVALID_ARGUMENT" },
    });
  });

  it("refuses what the Gemini API does not serve", async () => {
    const response = await post("/v1beta/models/gemini-3.8-flash:countTokens", { contents: [] });
    expect(response.status).toBe(400);
    expect(server?.requests.map((r) => r.url)).toEqual(["/v1beta/models/gemini-3.8-flash:countTokens"]);
  });
});

describe("Gemini CLI driver", () => {
  // Where 0.61.0 reads a user's settings: the preset copies them from there into the private HOME.
  it("selects API-key auth in the settings of a Gemini home it shows read-only", async () => {
    const stateDir = await mkdtemp(join(tmpdir(), "naruto-gemini-state-"));
    try {
      const { env, readOnly } = await gemini.configure({ server: { url: "http://127.0.0.1:1", requests: [], close: async () => {} }, stateDir });
      expect(env).toMatchObject({ GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:1", GEMINI_CLI_HOME: join(stateDir, "gemini-home") });
      expect(readOnly).toEqual([env.GEMINI_CLI_HOME]);
      const settings = JSON.parse(await readFile(join(env.GEMINI_CLI_HOME!, ".gemini", "settings.json"), "utf8")) as unknown;
      expect(settings).toMatchObject({ security: { auth: { selectedType: "gemini-api-key" } } });
    } finally {
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});
