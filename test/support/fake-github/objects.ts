/**
 * git's object formats, written without spawning git: a loose object is the zlib-deflated
 * `type size\0content`, named by its SHA-1, and moved into place by rename, as git does.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { deflateSync } from "node:zlib";

export type ObjectType = "blob" | "tree" | "commit";

/**
 * Writes one loose object into the bare repository at `dir`, as GitHub's storage would hold it
 * (the fake's own: naruto writes commits through git's fast-import only).
 */
export async function writeLooseObject(dir: string, type: ObjectType, content: Buffer): Promise<string> {
  const data = Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]);
  const id = createHash("sha1").update(data).digest("hex");
  const folder = join(dir, "objects", id.slice(0, 2));
  const temp = join(dir, "objects", `tmp_obj_fake_${randomBytes(8).toString("hex")}`);
  await writeFile(temp, deflateSync(data, { level: 1 }), { mode: 0o444 });
  await mkdir(folder, { recursive: true });
  await rename(temp, join(folder, id.slice(2)));
  return id;
}

export interface TreeItem {
  /** As the API shows it: `100644`, `100755`, `120000`, `160000`, or `040000` for a tree. */
  readonly mode: string;
  readonly name: string;
  readonly sha: string;
}

export function typeOfMode(mode: string): ObjectType {
  if (mode === "040000" || mode === "40000") return "tree";
  return mode === "160000" ? "commit" : "blob";
}

export function parseTree(content: Buffer): TreeItem[] {
  const items: TreeItem[] = [];
  let at = 0;
  while (at < content.length) {
    const space = content.indexOf(32, at);
    const nul = content.indexOf(0, space);
    const mode = content.subarray(at, space).toString("latin1").padStart(6, "0");
    const name = content.subarray(space + 1, nul).toString("utf8");
    const sha = content.subarray(nul + 1, nul + 21).toString("hex");
    items.push({ mode, name, sha });
    at = nul + 21;
  }
  return items;
}

/** git's tree order: by name bytes, a tree's name compared as if it ended in `/`. */
function sortKey(item: TreeItem): Buffer {
  return Buffer.from(typeOfMode(item.mode) === "tree" ? `${item.name}/` : item.name, "utf8");
}

export function serializeTree(items: readonly TreeItem[]): Buffer {
  const sorted = [...items].sort((a, b) => Buffer.compare(sortKey(a), sortKey(b)));
  return Buffer.concat(sorted.flatMap((item) => [Buffer.from(`${item.mode.replace(/^0+/, "")} ${item.name}\0`, "utf8"), Buffer.from(item.sha, "hex")]));
}

export interface Signature {
  readonly name: string;
  readonly email: string;
  /** ISO 8601. */
  readonly date: string;
}

function signature(who: Signature): string {
  const clean = (s: string) => s.replace(/[<>\n]/g, "").trim();
  return `${clean(who.name)} <${clean(who.email)}> ${Math.floor(Date.parse(who.date) / 1000)} +0000`;
}

export function serializeCommit(input: { tree: string; parents: readonly string[]; author: Signature; committer: Signature; message: string }): Buffer {
  const lines = [
    `tree ${input.tree}`,
    ...input.parents.map((p) => `parent ${p}`),
    `author ${signature(input.author)}`,
    `committer ${signature(input.committer)}`,
  ];
  return Buffer.from(`${lines.join("\n")}\n\n${input.message}`, "utf8");
}
