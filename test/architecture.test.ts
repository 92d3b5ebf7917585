/**
 * The layout of src/ is the architecture (CONTRIBUTING.md, "where does a change go"), and these
 * rules keep it so: a folder is a room with one door (other folders import it only through its
 * index.ts), the arrows between rooms never close a circle, no shared room imports a driver, and
 * no source file grows past one idea's length. The rules are read from the sources' own import
 * statements and line counts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));
/** The drivers: the entry points and the local driver. Only entry points may import them. */
const DRIVERS = new Set(["action", "app", "cli", "local"]);
const ENTRY_POINTS = new Set(["action", "app", "cli"]);
/**
 * The most lines a source file may have (CONTRIBUTING.md: files of one idea). Suites (`*.test.ts`)
 * do not count: a suite is a list of cases read one at a time, and the exemplary one
 * (src/mission/step.test.ts) is longer; fixtures are source and count.
 */
const MAX_LINES = 300;

interface Import {
  readonly from: string;
  readonly to: string;
  readonly line: number;
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (name.endsWith(".ts")) out.push(path);
  }
  return out;
}

/** Every relative import and re-export of one source file by another (type-only ones too). */
function readImports(files: readonly string[]): Import[] {
  const imports: Import[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    for (const statement of source.statements) {
      if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement))) continue;
      const specifier = statement.moduleSpecifier;
      if (specifier === undefined || !ts.isStringLiteral(specifier) || !specifier.text.startsWith(".")) continue;
      const to = relative(SRC, resolve(dirname(file), specifier.text));
      // Test support lives outside src/ and is no room of the house.
      if (to.startsWith("..")) continue;
      const line = source.getLineAndCharacterOfPosition(statement.getStart()).line + 1;
      imports.push({ from: relative(SRC, file), to, line });
    }
  }
  return imports;
}

/** Lines as `wc -l` counts them: newlines, plus a last line without one. */
const lineCount = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);

const room = (path: string) => path.split("/")[0] ?? path;
const isTestOnly = (path: string) => /\.(test|fixture)\.ts$/.test(path);

/** The circles of a directed graph, each as the list of its nodes (empty when there are none). */
function findCircles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const circles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === "open") circles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of [...edges.keys()].sort()) if (!state.has(node)) visit(node);
  return circles;
}

const files = sourceFiles(SRC);
const imports = readImports(files);
const where = (i: Import) => `src/${i.from}:${i.line} imports src/${i.to}`;

describe("the rooms of src/", () => {
  it("are entered only through their index.ts", () => {
    const around = imports.filter((i) => room(i.from) !== room(i.to) && i.to !== `${room(i.to)}/index.ts`);
    expect(around.map(where)).toEqual([]);
  });

  it("import no driver, unless they are an entry point", () => {
    const wrong = imports.filter((i) => room(i.from) !== room(i.to) && DRIVERS.has(room(i.to)) && !ENTRY_POINTS.has(room(i.from)));
    expect(wrong.map(where)).toEqual([]);
  });

  it("never import each other in a circle", () => {
    const edges = new Map<string, Set<string>>();
    for (const i of imports.filter((i) => !isTestOnly(i.from) && room(i.from) !== room(i.to))) {
      edges.set(room(i.from), (edges.get(room(i.from)) ?? new Set()).add(room(i.to)));
    }
    expect(findCircles(edges).map((c) => c.join(" → "))).toEqual([]);
  });

  it(`have no source file over ${MAX_LINES} lines`, () => {
    const long = files
      .filter((f) => !f.endsWith(".test.ts"))
      .map((f) => ({ file: relative(SRC, f), lines: lineCount(readFileSync(f, "utf8")) }))
      .filter((f) => f.lines > MAX_LINES);
    expect(long.map((f) => `src/${f.file}: ${f.lines} lines`)).toEqual([]);
  });

  it("have no circle between the files of src/git/, the plumbing every other room stands on", () => {
    const edges = new Map<string, Set<string>>();
    for (const i of imports.filter((i) => room(i.from) === "git" && room(i.to) === "git" && !isTestOnly(i.from))) {
      edges.set(i.from, (edges.get(i.from) ?? new Set()).add(i.to));
    }
    expect(findCircles(edges).map((c) => c.join(" → "))).toEqual([]);
  });

  it("finds a circle where there is one (the check can fail)", () => {
    const edges = new Map([
      ["a", new Set(["b"])],
      ["b", new Set(["c"])],
      ["c", new Set(["a"])],
    ]);
    expect(findCircles(edges)).toEqual([["a", "b", "c", "a"]]);
  });
});

/**
 * The arguments a long-running git process answers (src/git/: readObjects, checkObjects,
 * diffTrees, updateRefs, writeCommits), as they may appear in an array literal of a call: a call spelled so
 * outside src/git/ runs a process of its own, since the runner never matches arguments.
 */
function sessionCallsSpelledOut(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isArrayLiteralExpression(node)) {
      const words = node.elements.map((e) => (ts.isStringLiteral(e) ? e.text : null));
      const at = (i: number, word: string) => words[i] === word;
      const spelled =
        words.includes("update-ref") ||
        words.includes("fast-import") ||
        (words.includes("diff-tree") && words.includes("--stdin")) ||
        words.some((w, i) => w === "cat-file" && at(i - 1, "--no-optional-locks") && (at(i + 1, "--batch") || at(i + 1, "--batch-check")));
      if (spelled) found.push(`src/${relative(SRC, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText()}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("git calls", () => {
  it("that a long-running process answers (ref writes, batch object and change reads) are named operations of src/git/, never spelled as arguments", () => {
    const files = sourceFiles(SRC).filter((f) => room(relative(SRC, f)) !== "git" && !isTestOnly(relative(SRC, f)));
    expect(files.flatMap(sessionCallsSpelledOut)).toEqual([]);
  });

  it("are found spelled as arguments where they are (the check can fail)", () => {
    const dir = mkdtempSync(join(tmpdir(), "naruto-architecture-"));
    try {
      const file = join(dir, "spelled.ts");
      writeFileSync(
        file,
        'await git({ args: ["update-ref", ref, next], cwd });\nawait git({ args: ["--no-optional-locks", "cat-file", "--batch"], cwd, input });\n',
      );
      expect(sessionCallsSpelledOut(file)).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
