/**
 * GitHub's branch filters of `push` and `pull_request` triggers: `branches` and
 * `branches-ignore` glob patterns, where `*` matches within one path segment and `**` across
 * them; a pattern starting with `!` in `branches` excludes again. `push` filters the pushed
 * branch; `pull_request` the pull request's base branch.
 */

function globToRegExp(pattern: string): RegExp {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] ?? "";
    if (c === "*") {
      if (pattern[i + 1] === "*") {
        out += ".*";
        i++;
      } else out += "[^/]*";
    } else if (c === "?") out += "[^/]";
    else out += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}

/** Whether a trigger's `branches` / `branches-ignore` let `branch` through. */
export function branchMatches(spec: unknown, branch: string): boolean {
  if (typeof spec !== "object" || spec === null) return true;
  const record = spec as Record<string, unknown>;
  const list = (key: string): string[] | null => {
    const value = record[key];
    return Array.isArray(value) ? value.map(String) : typeof value === "string" ? [value] : null;
  };
  const ignore = list("branches-ignore");
  if (ignore !== null) return !ignore.some((p) => globToRegExp(p).test(branch));
  const only = list("branches");
  if (only === null) return true;
  let matched = false;
  for (const p of only) {
    if (p.startsWith("!")) {
      if (globToRegExp(p.slice(1)).test(branch)) matched = false;
    } else if (globToRegExp(p).test(branch)) matched = true;
  }
  return matched;
}
