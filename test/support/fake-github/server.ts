/**
 * The request path of the fake: git smart HTTP or REST; faults; recording; OpenAPI validation;
 * authentication and access; the route. Every request is recorded, and every request that
 * GitHub's description does not allow is a violation that fails the test — and so is every
 * success answer of the fake's that breaks GitHub's description of it (answers.ts).
 */
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { validateAnswer } from "./answers.ts";
import { authenticate, checkRepoAccess, principalName, type Principal } from "./auth.ts";
import { DOCS_URL, GitHubError, notFound, type Reply } from "./errors.ts";
import { faultReply, takeRequestFaults, type Fault, type FaultSource, type RequestFault } from "./faults.ts";
import { GIT_PATH, serveGit } from "./git-http.ts";
import { serveGraphql } from "./graphql/serve.ts";
import { BLOB_PATH, RESULTS_PATH, serveArtifactService } from "./results-service.ts";
import { matchOperation, operationKey, validateRequest } from "./openapi.ts";
import type { BaseContext } from "./route.ts";
import { ROUTES } from "./routes/index.ts";
import { findRepo, type World } from "./state.ts";

export interface RecordedRequest {
  /** `artifacts`: the Actions results service and artifact blobs (results-service.ts), not API calls. */
  readonly kind: "rest" | "git" | "graphql" | "artifacts";
  readonly method: string;
  /** Without the `/api/v3` prefix and the query; percent-encoded as sent. */
  readonly path: string;
  /** The OpenAPI operation, `METHOD template`; null when the request matched none. */
  readonly operation: string | null;
  readonly query: Readonly<Record<string, string>>;
  /** The parsed JSON body (undefined when none). */
  readonly body: unknown;
  /** True when the request came in under `/api/v3` (the GitHub Enterprise Server prefix). */
  readonly enterprise: boolean;
  status: number;
  /** Login of the user or bot (`app:SLUG` for an app JWT); null when anonymous or refused. */
  user: string | null;
}

export interface Violation {
  readonly method: string;
  readonly path: string;
  readonly operation: string | null;
  readonly problems: readonly string[];
}

export interface ServerCore {
  readonly world: World;
  readonly faults: Fault[];
  /** Faults decided per request (a seeded campaign), after the queued ones. */
  readonly source: { current: FaultSource | null };
  readonly requests: RecordedRequest[];
  readonly violations: Violation[];
}

const API_HEADERS = {
  "content-type": "application/json; charset=utf-8",
  "x-github-api-version-selected": "2022-11-28",
  "x-github-media-type": "github.v3; format=json",
  "x-ratelimit-limit": "5000",
  "x-ratelimit-remaining": "4999",
  "x-ratelimit-used": "1",
  "x-ratelimit-resource": "core",
};

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, reply: Reply, requestId: string): void {
  const headers: Record<string, string> = { ...API_HEADERS, "x-github-request-id": requestId, ...reply.headers };
  if (reply.body === undefined) {
    delete headers["content-type"];
    res.writeHead(reply.status, headers).end();
  } else {
    res.writeHead(reply.status, headers).end(JSON.stringify(reply.body));
  }
}

/**
 * GitHub's conditional requests: a GET's 200 carries an ETag of its answer; the same GET with
 * `If-None-Match: <that ETag>` is answered 304 without a body while the answer is unchanged (and
 * GitHub does not count it against the rate limit). The ETag here is a hash of the answer.
 */
function conditional(method: string, kind: string, reply: Reply, ifNoneMatch: string | undefined): Reply {
  if (method !== "GET" || kind !== "rest" || reply.status !== 200 || reply.body === undefined) return reply;
  const etag = `W/"${createHash("sha256").update(JSON.stringify(reply.body)).digest("hex").slice(0, 40)}"`;
  if (ifNoneMatch?.split(/\s*,\s*/).includes(etag)) return { status: 304, headers: { ...reply.headers, etag } };
  return { ...reply, headers: { ...reply.headers, etag } };
}

export function createHandler(core: ServerCore): (req: IncomingMessage, res: ServerResponse) => void {
  let sequence = 0;
  return (req, res) => {
    handle(core, req, res, `FAKE:${++sequence}`).catch((error: unknown) => {
      // The client closed its connection before the answer (a killed App, a cancelled call):
      // reading what it sent fails, and nothing is left to answer.
      if (clientWentAway(req, error)) return;
      core.violations.push({ method: req.method ?? "", path: req.url ?? "", operation: null, problems: [`fake-github crashed: ${String(error)}`] });
      if (!res.headersSent) res.writeHead(500).end();
    });
  };
}

function clientWentAway(req: IncomingMessage, error: unknown): boolean {
  return req.destroyed && error instanceof Error && (error as NodeJS.ErrnoException).code === "ECONNRESET";
}

async function handle(core: ServerCore, req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
  const url = new URL(req.url ?? "/", "http://fake-github");
  const method = (req.method ?? "GET").toUpperCase();
  // GitHub Enterprise Server: REST under /api/v3, GraphQL at /api/graphql.
  const enterpriseGraphql = url.pathname === "/api/graphql";
  const enterprise = enterpriseGraphql || url.pathname === "/api/v3" || url.pathname.startsWith("/api/v3/");
  const path = enterpriseGraphql ? "/graphql" : enterprise ? url.pathname.slice("/api/v3".length) || "/" : url.pathname;
  const web = `http://${req.headers.host ?? "127.0.0.1"}`;
  const query = Object.fromEntries(url.searchParams);
  if (RESULTS_PATH.test(path) || BLOB_PATH.test(path)) {
    const entry: RecordedRequest = { kind: "artifacts", method, path, operation: null, query, body: undefined, enterprise, status: 0, user: null };
    core.requests.push(entry);
    entry.status = await serveArtifactService({ world: core.world, req, res, url, method });
    return;
  }
  const queued = takeRequestFaults(core.faults, method, path);
  const decided = queued.failure === undefined ? (core.source.current?.request({ method, path, git: GIT_PATH.test(path) }) ?? null) : null;
  const delayMs = queued.delayMs + (decided?.delayMs ?? 0);
  const failure: RequestFault | undefined = queued.failure ?? decided?.failure;
  if (delayMs > 0) await sleep(delayMs);

  const git = GIT_PATH.exec(path);
  if (git !== null) {
    const entry: RecordedRequest = { kind: "git", method, path, operation: null, query, body: undefined, enterprise, status: 0, user: null };
    core.requests.push(entry);
    if (failure !== undefined) {
      req.resume();
      const reply = faultReply(failure, core.world.now());
      entry.status = reply.status;
      return send(res, reply, requestId);
    }
    const served = await serveGit({ world: core.world, req, res, match: git, query: url.search.slice(1) });
    entry.status = served.status;
    entry.user = served.user;
    return;
  }

  const raw = await readBody(req);
  let body: unknown;
  let unparsable = false;
  if (raw.length > 0) {
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      unparsable = true;
    }
  }
  const kind = method === "POST" && path === "/graphql" ? "graphql" : "rest";
  const matched = kind === "graphql" ? null : matchOperation(method, path);
  const operation = matched === null ? null : operationKey(matched.operation);
  const entry: RecordedRequest = { kind, method, path, operation, query, body, enterprise, status: 0, user: null };
  core.requests.push(entry);

  let reply: Reply;
  if (failure !== undefined && !("status" in failure && failure.after === true)) {
    reply = faultReply(failure, core.world.now());
  } else {
    const urls = { api: enterprise ? `${web}/api/v3` : web, web };
    reply = await answer({ core, method, path, url, body, unparsable, matched, entry, urls, req });
    if (operation !== null) {
      const problems = validateAnswer({ operation, status: reply.status, body: reply.body });
      if (problems.length > 0) core.violations.push({ method, path, operation, problems });
    }
    if (failure !== undefined) reply = faultReply(failure, core.world.now());
    else reply = conditional(method, kind, reply, req.headers["if-none-match"]);
  }
  entry.status = reply.status;
  send(res, reply, requestId);
}

async function answer(input: {
  core: ServerCore;
  method: string;
  path: string;
  url: URL;
  body: unknown;
  unparsable: boolean;
  matched: ReturnType<typeof matchOperation>;
  entry: RecordedRequest;
  urls: BaseContext["urls"];
  req: IncomingMessage;
}): Promise<Reply> {
  const { core, matched, entry } = input;
  const violate = (problems: string[]) => core.violations.push({ method: input.method, path: input.path, operation: entry.operation, problems });
  try {
    if (entry.kind === "graphql") {
      const principal = authenticate(core.world, input.req.headers.authorization);
      entry.user = principalName(principal, core.world);
      const { reply, problems } = await serveGraphql({
        world: core.world,
        principal,
        urls: { api: input.urls.web, web: input.urls.web },
        body: input.body,
        unparsable: input.unparsable,
      });
      if (problems.length > 0) violate([...problems]);
      return reply;
    }
    if (matched === null) violate([`${input.method} ${input.path} is not an operation in the fake's OpenAPI subset`]);
    if (input.unparsable) violate(["the request body is not JSON"]);
    const problems = matched === null || input.unparsable ? [] : validateRequest({ matched, query: input.url.searchParams, body: input.body });
    if (problems.length > 0) violate(problems);

    const principal: Principal = authenticate(core.world, input.req.headers.authorization);
    entry.user = principalName(principal, core.world);
    if (matched === null) return notFound().toReply();
    if (input.unparsable) return new GitHubError(400, "Problems parsing JSON").toReply();
    const route = ROUTES.get(operationKey(matched.operation));
    if (route === undefined) throw new Error(`no route for ${operationKey(matched.operation)}`);
    const base: BaseContext = {
      world: core.world,
      urls: input.urls,
      params: matched.params,
      query: input.url.searchParams,
      body: (typeof input.body === "object" && input.body !== null ? input.body : {}) as BaseContext["body"],
      principal,
    };
    if (route.access === "self") {
      if (problems.length > 0) return invalid(problems);
      return await route.handle(base);
    }
    const repo = findRepo(core.world, matched.params["owner"] ?? "", matched.params["repo"] ?? "");
    if (repo === undefined) throw notFound();
    checkRepoAccess(principal, repo, route.access);
    if (problems.length > 0) return invalid(problems);
    return await route.handle({ ...base, repo, git: core.world.gits.get(repo.dir) });
  } catch (error) {
    if (error instanceof GitHubError) return error.toReply();
    violate([`fake-github failed on this request: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`]);
    return { status: 500, body: { message: "Server Error", documentation_url: DOCS_URL, status: "500" } };
  }
}

/** GitHub's answer to a body or parameter that breaks the schema. */
function invalid(problems: readonly string[]): Reply {
  return new GitHubError(422, `Invalid request.\n\n${problems.join("\n")}`).toReply();
}
