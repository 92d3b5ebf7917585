/**
 * What the scripted Gemini model answers to one request: a pure function of the request and the
 * scenarios, so the server keeps no state between requests. The conversation says where the
 * scenario stands: each `functionResponse` in it is a step already taken.
 *
 * Gemini CLI 0.61.0 sends two kinds of request (AGENTS.md, "Driving the CLIs offline"):
 * - utility questions (`generateContent` with `responseMimeType: application/json`): the router's
 *   (a complexity score for its Gemini 3 models, measured; else "flash or pro?") and, where the
 *   CLI asks it, the next-speaker check. They are not the scenario's turns: the answer fills the
 *   asked-for JSON schema (1, "flash", "user": the first enum value) and reports no tokens, so a
 *   result's tokens are the scenario's turns alone;
 * - the model's turns (`streamGenerateContent`): the next step as a `write_file` or
 *   `run_shell_command` call, or the final text.
 */
import { isAbsolute, resolve } from "node:path";
import { pickScenario, turnAt } from "./script.ts";
import type { Scenario, Usage } from "./types.ts";

/** The parts of a Gemini API request body this server reads. */
export interface GeminiRequest {
  readonly contents?: readonly { readonly role?: string; readonly parts?: readonly GeminiPart[] }[];
  readonly generationConfig?: { readonly responseMimeType?: string; readonly responseJsonSchema?: unknown; readonly responseSchema?: unknown };
}

export interface GeminiPart {
  readonly text?: string;
  readonly functionCall?: unknown;
  readonly functionResponse?: unknown;
}

export type GeminiReply =
  | { readonly status: 200; readonly body: Record<string, unknown> }
  | { readonly status: 400; readonly body: { readonly error: { readonly code: 400; readonly message: string; readonly status: "INVALID_ARGUMENT" } } };

/**
 * The answer to `model`'s request. `model` is reported back as `modelVersion`, which the CLI
 * keys its `stats.models` by.
 *
 * @example answerGemini({ model: "gemini-2.5-pro", request, scenarios }) // → { status: 200, body: { candidates: [{ content: { parts: [{ functionCall: … }] } }], … } }
 */
export function answerGemini(input: { readonly model: string; readonly request: GeminiRequest; readonly scenarios: readonly Scenario[] }): GeminiReply {
  const { model, request, scenarios } = input;
  const config = request.generationConfig;
  if (config?.responseMimeType === "application/json") {
    return reply(model, [{ text: JSON.stringify(fillSchema(config.responseJsonSchema ?? config.responseSchema)) }], NO_USAGE);
  }
  const texts = userTexts(request);
  const scenario = pickScenario(scenarios, texts.join("\n"));
  if (scenario === null) return geminiError(`no scenario matches the prompt (matches: ${scenarios.map((s) => JSON.stringify(s.match)).join(", ")})`);
  // Each answer of the model's that was a tool call came back as one functionResponse.
  const answered = (request.contents ?? []).flatMap((c) => c.parts ?? []).filter((p) => p.functionResponse !== undefined).length;
  const turn = turnAt(scenario, answered);
  if (turn.kind === "say") return reply(model, [{ text: turn.text }], scenario.usage);
  if (turn.kind === "shell")
    return reply(model, [{ functionCall: { name: "run_shell_command", args: { command: turn.command, description: "scripted step" } } }], scenario.usage);
  const cwd = workingDirectory(texts);
  if (cwd === null) return geminiError('no working directory in the request (no "Workspace Directories" in the session context)');
  const path = isAbsolute(turn.path) ? turn.path : resolve(cwd, turn.path);
  return reply(model, [{ functionCall: { name: "write_file", args: { file_path: path, content: turn.content } } }], scenario.usage);
}

const NO_USAGE: Usage = { input: 0, output: 0 };

function reply(model: string, parts: readonly Record<string, unknown>[], usage: Usage): GeminiReply {
  const cached = usage.cacheRead ?? 0;
  return {
    status: 200,
    body: {
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
      // promptTokenCount counts cached tokens too; cachedContentTokenCount is the part of it read from the cache.
      usageMetadata: {
        promptTokenCount: usage.input + cached,
        candidatesTokenCount: usage.output,
        ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
        totalTokenCount: usage.input + cached + usage.output,
      },
      modelVersion: model,
      responseId: `scripted-${model}`,
    },
  };
}

/** An error as the Gemini API words one (the CLI shows its message, and exits non-zero). */
export function geminiError(message: string): GeminiReply {
  return { status: 400, body: { error: { code: 400, message: `scripted Gemini server: ${message}`, status: "INVALID_ARGUMENT" } } };
}

/** The text the user side of the conversation holds: the session context and the prompt. */
function userTexts(request: GeminiRequest): string[] {
  return (request.contents ?? [])
    .filter((c) => c.role !== "model")
    .flatMap((c) => (c.parts ?? []).flatMap((p) => (typeof p.text === "string" ? [p.text] : [])));
}

/** The first workspace directory the session context lists (`- **Workspace Directories:**\n  - /path`). */
function workingDirectory(texts: readonly string[]): string | null {
  for (const text of texts) {
    const match = /\*\*Workspace Directories:\*\*\s*\n\s*- (\/[^\n]*)/.exec(text);
    if (match?.[1] !== undefined) return match[1].trimEnd();
  }
  return null;
}

/** A value of a JSON schema (either the OpenAPI-style `Type.OBJECT` or plain `"object"`): required properties, first enum values. */
function fillSchema(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null) return {};
  const s = schema as { type?: unknown; enum?: unknown; properties?: Record<string, unknown>; required?: unknown; items?: unknown };
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  switch (String(s.type ?? "object").toLowerCase()) {
    case "string":
      return "scripted";
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return false;
    case "array":
      return [];
    default: {
      const required = Array.isArray(s.required) ? s.required.filter((k): k is string => typeof k === "string") : [];
      return Object.fromEntries(required.map((k) => [k, fillSchema(s.properties?.[k])]));
    }
  }
}
