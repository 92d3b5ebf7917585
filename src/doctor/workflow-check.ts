/**
 * A workflow file judged by GitHub's own parser, `@actions/workflow-parser` (the Actions
 * simulator's judge too): GitHub's workflow schema (keys, types, where each context and
 * function may be used, expression syntax), then the conversion GitHub does before it runs
 * anything (triggers, jobs, needs that are unknown or form a cycle, step ids). What it reports
 * is what GitHub would refuse the file for.
 *
 * The package imports its JSON schemas without `with { type: "json" }`, which Node 20 refuses,
 * so it is bundled into build/ (scripts/build.ts; esbuild reads JSON itself), and is a
 * development dependency: the installed package carries the bundle, not the package.
 */
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from "@actions/workflow-parser";

/** GitHub's diagnostics for the file, each `path:line:column message`-like as the parser words them; empty when it is valid. */
export async function workflowDiagnostics(text: string, path: string): Promise<string[]> {
  const { context, value } = parseWorkflow({ name: path, content: text }, new NoOperationTraceWriter());
  if (value === undefined) return context.errors.count > 0 ? context.errors.getErrors().map((e) => e.message) : [`${path}: the file is empty`];
  if (context.errors.count === 0) await convertWorkflowTemplate(context, value);
  return context.errors.getErrors().map((e) => e.message);
}
