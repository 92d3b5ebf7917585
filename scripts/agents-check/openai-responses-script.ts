/**
 * What the scripted OpenAI Responses server answers to one request (pure: request body in, reply
 * out; openai-responses-server.ts streams it). Codex CLI sends the whole conversation every turn
 * (`store: false`), so the next step follows from the request alone (script.ts): the scenario is
 * the one whose `match` the user's messages contain, and the step is the number of tool outputs
 * already in the conversation.
 *
 * Codex 0.169.0 with its default model offers one freeform tool, `exec`, whose JavaScript reaches
 * every other tool through `tools.*` (`tools.apply_patch(patch)`, `tools.exec_command({ cmd })`).
 * Other models get the tools at the top level; a model Codex does not know gets `exec_command`
 * but no `apply_patch`, and then a write step is refused with an HTTP error rather than faked
 * through the shell. The tools are read from each request, so the script follows what the CLI
 * offers.
 */
import { pickScenario, turnAt, type Turn } from "./script.ts";
import type { Scenario, Usage } from "./types.ts";

/** One output item of a model turn. */
export type Reply =
  /** A call of a freeform (custom) tool: `input` is raw text, e.g. JavaScript or a patch. */
  | { readonly kind: "custom_tool_call"; readonly name: string; readonly input: string }
  /** A call of a JSON function tool. */
  | { readonly kind: "function_call"; readonly name: string; readonly arguments: string }
  | { readonly kind: "message"; readonly text: string };

type Refusal = { readonly kind: "refusal"; readonly status: number; readonly message: string };

/** What one request gets: a model turn with the scenario's usage, or an HTTP error saying why not. */
export type Answer = { readonly kind: "turn"; readonly reply: Reply; readonly usage: Usage } | Refusal;

/** The tools a request offers, by name, flattened out of namespaces and `additional_tools`. */
export type OfferedTools = ReadonlyMap<string, "custom" | "function">;

interface InputItem {
  readonly type?: unknown;
  readonly role?: unknown;
  readonly content?: unknown;
  readonly tools?: unknown;
}

export function answer(body: unknown, scenarios: readonly Scenario[]): Answer {
  const input = inputItems(body);
  const scenario = pickScenario(scenarios, userText(input));
  if (scenario === null) {
    return {
      kind: "refusal",
      status: 400,
      message: `no scenario matches this prompt (looked for ${scenarios.map((s) => JSON.stringify(s.match)).join(", ")})`,
    };
  }
  // Every tool call of the model's comes back as one output: their number is the turns taken.
  const answered = input.filter((item) => item.type === "custom_tool_call_output" || item.type === "function_call_output").length;
  const reply = replyFor(turnAt(scenario, answered), offeredTools(body));
  return reply.kind === "refusal" ? reply : { kind: "turn", reply, usage: scenario.usage };
}

function replyFor(turn: Turn, tools: OfferedTools): Reply | Refusal {
  if (turn.kind === "say") return { kind: "message", text: turn.text };
  const call: ToolCall =
    turn.kind === "write" ? { tool: "apply_patch", input: addFilePatch(turn.path, turn.content) } : { tool: "exec_command", input: { cmd: turn.command } };
  if (tools.get("exec") === "custom") return { kind: "custom_tool_call", name: "exec", input: execScript(call) };
  const kind = tools.get(call.tool);
  if (kind === undefined) {
    return { kind: "refusal", status: 400, message: `the request offers neither exec nor ${call.tool} (offered: ${[...tools.keys()].join(", ") || "none"})` };
  }
  const text = typeof call.input === "string" ? call.input : JSON.stringify(call.input);
  if (kind === "custom") return { kind: "custom_tool_call", name: call.tool, input: text };
  return { kind: "function_call", name: call.tool, arguments: call.tool === "apply_patch" ? JSON.stringify({ input: text }) : text };
}

type ToolCall = { readonly tool: "apply_patch"; readonly input: string } | { readonly tool: "exec_command"; readonly input: { readonly cmd: string } };

/**
 * The JavaScript for Codex's `exec` tool: one nested call, its result handed back as the tool's
 * output (`text`), so the transcript shows what apply_patch or the command said.
 */
export function execScript(call: ToolCall): string {
  return `const result = await tools.${call.tool}(${JSON.stringify(call.input)});\ntext(result);\n`;
}

/**
 * An apply_patch "Add File" hunk. apply_patch writes every `+` line followed by a newline, so a
 * content without a final newline gets one: scenarios should end their content with `\n`.
 * Adding a file that exists replaces it.
 *
 * @example addFilePatch("a.txt", "hi\n") // "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"
 */
export function addFilePatch(path: string, content: string): string {
  const lines = (content.endsWith("\n") ? content.slice(0, -1) : content).split("\n");
  return ["*** Begin Patch", `*** Add File: ${path}`, ...lines.map((l) => `+${l}`), "*** End Patch", ""].join("\n");
}

export function offeredTools(body: unknown): OfferedTools {
  const found = new Map<string, "custom" | "function">();
  const visit = (tools: unknown): void => {
    if (!Array.isArray(tools)) return;
    for (const tool of tools as { type?: unknown; name?: unknown; tools?: unknown }[]) {
      if (tool.type === "namespace") visit(tool.tools);
      else if ((tool.type === "custom" || tool.type === "function") && typeof tool.name === "string") found.set(tool.name, tool.type);
    }
  };
  visit(isRecord(body) ? body.tools : undefined);
  for (const item of inputItems(body)) if (item.type === "additional_tools") visit(item.tools);
  return found;
}

function inputItems(body: unknown): readonly InputItem[] {
  return isRecord(body) && Array.isArray(body.input) ? (body.input as InputItem[]) : [];
}

/** The text of the user's messages (Codex sends the prompt as one, after its environment context). */
function userText(input: readonly InputItem[]): string {
  const parts: string[] = [];
  for (const item of input) {
    if (item.type !== "message" || item.role !== "user" || !Array.isArray(item.content)) continue;
    for (const part of item.content as { type?: unknown; text?: unknown }[]) if (typeof part.text === "string") parts.push(part.text);
  }
  return parts.join("\n");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
