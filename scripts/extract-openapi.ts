/**
 * Writes the part of GitHub's REST description that the fake GitHub serves, for each operation
 * below (every operation naruto's port, src/github/, the App and `naruto doctor` call, and a
 * few reads the fake's own tests use):
 *
 * - test/support/fake-github/openapi-subset.json: path, method, parameters and request body
 *   schema, with every `$ref` resolved. The fake checks each request against it.
 * - test/support/fake-github/openapi-responses.json: the `application/json` schema of each
 *   success status, with the component schemas they name kept once each by name
 *   (openapi-responses.ts). test/fake-github/answers.test.ts checks the fake's answers with it.
 *
 * `@octokit/openapi` is 385 MB unpacked, so it is never a dependency of the project. To
 * regenerate the subset (for example after adding an endpoint to the fake):
 *
 *   mkdir -p /tmp/openapi && (cd /tmp/openapi && npm init -y && npm install --no-save @octokit/openapi)
 *   node --import tsx scripts/extract-openapi.ts /tmp/openapi
 *
 * The argument is the directory where `@octokit/openapi` is installed (default /tmp/openapi).
 * Both files record the package version they came from (`version`); install that version
 * (`@octokit/openapi@23.0.2`) to reproduce them byte for byte, or the latest to follow GitHub.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { extractResponses } from "./openapi-responses.ts";

/** The operations the fake GitHub implements: `METHOD path` as GitHub's description names them. */
export const OPERATIONS = [
  "GET /repos/{owner}/{repo}",
  "GET /repos/{owner}/{repo}/contents/{path}",
  "GET /repos/{owner}/{repo}/collaborators/{username}/permission",
  "GET /repos/{owner}/{repo}/installation",
  "GET /repos/{owner}/{repo}/issues",
  "POST /repos/{owner}/{repo}/issues",
  "GET /repos/{owner}/{repo}/issues/{issue_number}",
  "GET /repos/{owner}/{repo}/issues/{issue_number}/comments",
  "GET /repos/{owner}/{repo}/issues/comments",
  "POST /repos/{owner}/{repo}/issues/{issue_number}/comments",
  "GET /repos/{owner}/{repo}/issues/comments/{comment_id}",
  "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}",
  "DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}",
  "POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
  "POST /repos/{owner}/{repo}/issues/{issue_number}/reactions",
  "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches",
  "GET /repos/{owner}/{repo}/actions/runs/{run_id}",
  "GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs",
  "POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel",
  "GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts",
  "GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}",
  "GET /repos/{owner}/{repo}/pulls",
  "POST /repos/{owner}/{repo}/pulls",
  "GET /repos/{owner}/{repo}/pulls/{pull_number}",
  "PATCH /repos/{owner}/{repo}/pulls/{pull_number}",
  "GET /repos/{owner}/{repo}/pulls/{pull_number}/files",
  "POST /repos/{owner}/{repo}/check-runs",
  "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}",
  "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
  "GET /repos/{owner}/{repo}/git/ref/{ref}",
  "GET /repos/{owner}/{repo}/git/matching-refs/{ref}",
  "POST /repos/{owner}/{repo}/git/refs",
  "PATCH /repos/{owner}/{repo}/git/refs/{ref}",
  "DELETE /repos/{owner}/{repo}/git/refs/{ref}",
  "POST /repos/{owner}/{repo}/git/blobs",
  "GET /repos/{owner}/{repo}/git/blobs/{file_sha}",
  "POST /repos/{owner}/{repo}/git/trees",
  "GET /repos/{owner}/{repo}/git/trees/{tree_sha}",
  "POST /repos/{owner}/{repo}/git/commits",
  "GET /repos/{owner}/{repo}/git/commits/{commit_sha}",
  "GET /repos/{owner}/{repo}/compare/{basehead}",
  "GET /repos/{owner}/{repo}/actions/secrets",
  "GET /repos/{owner}/{repo}/actions/organization-secrets",
  "GET /repos/{owner}/{repo}/actions/variables",
  "GET /repos/{owner}/{repo}/actions/organization-variables",
  "GET /repos/{owner}/{repo}/actions/permissions/workflow",
  "GET /app",
  "POST /app/installations/{installation_id}/access_tokens",
] as const;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Resolves every local `$ref` below `value`; GitHub's request schemas have no cycles. */
function resolve(doc: JsonObject, value: Json, seen: readonly string[] = []): Json {
  if (Array.isArray(value)) return value.map((v) => resolve(doc, v, seen));
  if (!isObject(value)) return value;
  const ref = value["$ref"];
  if (typeof ref === "string") {
    if (seen.includes(ref)) throw new Error(`cyclic $ref ${ref}`);
    let target: Json | undefined = doc;
    for (const part of ref.replace(/^#\//, "").split("/")) target = isObject(target) ? target[part] : undefined;
    if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
    return resolve(doc, target, [...seen, ref]);
  }
  const out: JsonObject = {};
  // Descriptions and examples are what make the full description 385 MB; validation needs neither.
  for (const [key, v] of Object.entries(value)) {
    if (key === "description" || key === "example" || key === "examples") continue;
    out[key] = resolve(doc, v, seen);
  }
  return out;
}

export function extractSubset(doc: JsonObject): JsonObject {
  const paths = doc["paths"];
  if (!isObject(paths)) throw new Error("the OpenAPI document has no paths");
  const operations: Json[] = [];
  for (const entry of OPERATIONS) {
    const [method, path] = entry.split(" ") as [string, string];
    const item = paths[path];
    const op = isObject(item) ? item[method.toLowerCase()] : undefined;
    if (!isObject(op)) throw new Error(`${entry} is not in the OpenAPI description`);
    const parameters = resolve(doc, op["parameters"] ?? []);
    const body = isObject(op["requestBody"]) ? resolve(doc, op["requestBody"]) : null;
    const content = isObject(body) && isObject(body["content"]) ? body["content"]["application/json"] : undefined;
    operations.push({
      operationId: op["operationId"] ?? null,
      method,
      path,
      parameters,
      requestBody: isObject(body) && isObject(content) ? { required: body["required"] === true, schema: content["schema"] ?? {} } : null,
    });
  }
  const info = isObject(doc["info"]) ? doc["info"] : {};
  return { source: "@octokit/openapi generated/api.github.com.json", version: info["version"] ?? null, operations };
}

async function main(): Promise<void> {
  const root = process.argv[2] ?? "/tmp/openapi";
  const input = join(root, "node_modules/@octokit/openapi/generated/api.github.com.json");
  const doc = JSON.parse(await readFile(input, "utf8")) as JsonObject;
  const pkg = JSON.parse(await readFile(join(root, "node_modules/@octokit/openapi/package.json"), "utf8")) as JsonObject;
  const subset = extractSubset({ ...doc, info: { version: pkg["version"] ?? null } });
  const out = fileURLToPath(new URL("../test/support/fake-github/openapi-subset.json", import.meta.url));
  await writeFile(out, `${JSON.stringify(subset, null, 1)}\n`);
  const answers = { source: subset["source"] ?? null, version: subset["version"] ?? null, ...extractResponses(doc, OPERATIONS) };
  const answersOut = fileURLToPath(new URL("../test/support/fake-github/openapi-responses.json", import.meta.url));
  await writeFile(answersOut, `${JSON.stringify(answers, null, 1)}\n`);
  const components = Object.keys(answers.components).length;
  console.log(
    `wrote ${OPERATIONS.length} operations from @octokit/openapi ${String(pkg["version"])} to ${out}, their answers (${components} components) to ${answersOut}`,
  );
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await main();
