/**
 * What git's fsck checks inside the two files the gate lets through only when config allows them
 * (fsck.c `fsck_gitmodules_fn`, `fsck_gitattributes`): a `.gitmodules` whose submodule names, urls,
 * paths or update commands git refuses, and a `.gitattributes` git would not read. A repository
 * that receives with `fsckObjects` (GitHub does) refuses them, so naruto refuses them first. Pure.
 */

/** One `key=value` of a config file as `git config --list -z` prints it; value null when absent. */
export interface ConfigEntry {
  readonly key: string;
  readonly value: string | null;
}

/** Parses `git config --list -z`: `key\nvalue\0` or `key\0` records. */
export function parseConfigList(text: string): ConfigEntry[] {
  return text
    .split("\0")
    .filter((r) => r !== "")
    .map((record) => {
      const nl = record.indexOf("\n");
      return nl === -1 ? { key: record, value: null } : { key: record.slice(0, nl), value: record.slice(nl + 1) };
    });
}

/**
 * Why git would refuse this `.gitmodules`, one reason per bad setting (empty: nothing).
 *
 * @example gitmodulesProblems([{ key: "submodule.x.url", value: "-u./payload" }]) → ["submodule x: url \"-u./payload\" looks like a command-line option"]
 */
export function gitmodulesProblems(entries: readonly ConfigEntry[]): string[] {
  const problems: string[] = [];
  for (const { key, value } of entries) {
    const first = key.indexOf(".");
    const last = key.lastIndexOf(".");
    if (key.slice(0, first).toLowerCase() !== "submodule" || first === last) continue;
    const name = key.slice(first + 1, last);
    const variable = key.slice(last + 1).toLowerCase();
    if (!submoduleNameOk(name)) problems.push(`submodule ${JSON.stringify(name)}: a name git refuses (empty, or ".." as a component)`);
    if (value === null) continue;
    if (variable === "url" && !submoduleUrlOk(value)) problems.push(`submodule ${JSON.stringify(name)}: url ${JSON.stringify(value)} is one git refuses`);
    if (variable === "path" && value.startsWith("-"))
      problems.push(`submodule ${JSON.stringify(name)}: path ${JSON.stringify(value)} looks like a command-line option`);
    if (variable === "update" && value.startsWith("!")) problems.push(`submodule ${JSON.stringify(name)}: update ${JSON.stringify(value)} runs a command`);
  }
  return [...new Set(problems)];
}

/** submodule-config.c `check_submodule_name`: not empty, no `..` component (`/` or `\` separated). */
function submoduleNameOk(name: string): boolean {
  return name !== "" && !name.split(/[/\\]/).includes("..");
}

/** fsck.c `check_submodule_url`. */
function submoduleUrlOk(url: string): boolean {
  if (url.startsWith("-")) return false;
  if (/^\.\.?[/\\]/.test(url) || url.startsWith("git://")) {
    if (percentDecode(url).includes("\n")) return false;
    // `../` that climbs out of the base URL can rewrite its host (CVE-2020-11008).
    const rest = url.replace(/^(?:\.\.[/\\])+/, "");
    return rest === url || !(rest.startsWith(":") || rest.startsWith("/") || rest.startsWith("\\"));
  }
  const curl = /^(?:https?|ftps?)::/.test(url) ? url.slice(url.indexOf("::") + 2) : /^(?:https?|ftps?):\/\//.test(url) ? url : null;
  return curl === null || curlUrlOk(curl);
}

/** credential.c `credential_from_url_gently`, as fsck uses it: a host, and no newline in any part. */
function curlUrlOk(url: string): boolean {
  const protocolEnd = url.indexOf("://");
  if (protocolEnd <= 0) return false;
  const rest = url.slice(protocolEnd + 3);
  const slash = rest.search(/[/?#]/) === -1 ? rest.length : rest.search(/[/?#]/);
  const at = rest.indexOf("@");
  const colon = rest.indexOf(":");
  const parts: string[] = [];
  let host = rest.slice(0, slash);
  if (at !== -1 && at < slash) {
    parts.push(colon === -1 || at <= colon ? rest.slice(0, at) : rest.slice(0, colon), colon !== -1 && colon < at ? rest.slice(colon + 1, at) : "");
    host = rest.slice(at + 1, slash);
  }
  parts.push(host, rest.slice(slash));
  return percentDecode(host) !== "" && !parts.some((p) => percentDecode(p).includes("\n"));
}

function percentDecode(text: string): string {
  return text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

// attr.c: lines longer than this are ignored by git, and fsck refuses the file.
export const ATTR_MAX_LINE_LENGTH = 2048;
// attr.c: a larger file is not read at all.
export const ATTR_MAX_FILE_SIZE = 100 * 1024 * 1024;

/** Why git would refuse this `.gitattributes` (fsck `gitattributesLineLength`), or null. */
export function gitattributesProblem(content: Buffer): string | null {
  let start = 0;
  for (let line = 1; start <= content.length; line++) {
    const nl = content.indexOf(0x0a, start);
    const end = nl === -1 ? content.length : nl;
    if (end - start > ATTR_MAX_LINE_LENGTH) return `line ${line} is longer than ${ATTR_MAX_LINE_LENGTH} bytes`;
    if (nl === -1) break;
    start = nl + 1;
  }
  return null;
}
