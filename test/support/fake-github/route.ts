/**
 * How a REST route is declared: the OpenAPI operation it serves (`METHOD template`), what
 * access it needs, and a handler from a request context to a reply.
 */
import type { Access, Principal } from "./auth.ts";
import type { Reply } from "./errors.ts";
import type { RepoGit } from "./git-store.ts";
import type { Urls } from "./shapes.ts";
import type { RepoState, World } from "./state.ts";

export type Body = Readonly<Record<string, unknown>>;

export interface BaseContext {
  readonly world: World;
  readonly urls: Urls;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The validated JSON body; `{}` when the request had none. */
  readonly body: Body;
  readonly principal: Principal;
}

export interface RepoContext extends BaseContext {
  readonly repo: RepoState;
  readonly git: RepoGit;
}

/** A route on a repository: the server finds the repository and checks `access` first. */
export interface RepoRoute {
  readonly op: string;
  readonly access: Access;
  readonly handle: (ctx: RepoContext) => Promise<Reply> | Reply;
}

/** A route that authorizes the request itself (the app's JWT endpoints). */
export interface SelfRoute {
  readonly op: string;
  readonly access: "self";
  readonly handle: (ctx: BaseContext) => Promise<Reply> | Reply;
}

export type Route = RepoRoute | SelfRoute;

export const ok = (body: unknown, status = 200): Reply => ({ status, body });
export const noContent = (): Reply => ({ status: 204 });

/** A page of a list, with GitHub's `Link` header (`rel="next"`, `"last"`, `"first"`, `"prev"`). */
export function paginate<T>(input: { items: readonly T[]; query: URLSearchParams; selfUrl: string; maxPerPage?: number }): Reply {
  const perPage = Math.min(Math.max(Number(input.query.get("per_page") ?? 30) || 30, 1), input.maxPerPage ?? 100);
  const page = Math.max(Number(input.query.get("page") ?? 1) || 1, 1);
  const last = Math.max(Math.ceil(input.items.length / perPage), 1);
  const link = (p: number, rel: string): string => {
    const params = new URLSearchParams(input.query);
    params.set("per_page", String(perPage));
    params.set("page", String(p));
    return `<${input.selfUrl}?${params.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page > 1) links.push(link(page - 1, "prev"));
  if (page < last) links.push(link(page + 1, "next"), link(last, "last"));
  if (page > 1) links.push(link(1, "first"));
  return {
    status: 200,
    body: input.items.slice((page - 1) * perPage, page * perPage),
    headers: links.length > 0 ? { link: links.join(", ") } : {},
  };
}
