/**
 * What counts as a test file, and as a line that skips a test, in the languages agents write
 * most (issue 37). An agent told to make the tests pass can delete them or skip them, and the
 * verify goes green; these are the common ways, per language, to say "do not run this test".
 *
 * Markers that name a test framework (`@pytest.mark.skip`, `#[ignore]`, `@Disabled`) count in any
 * file of their language; the short ones that could be other code (`.skip(`, `xit(`, `t.Skip(`)
 * count only in a test file.
 */

const TEST_FOLDERS = new Set(["test", "tests", "__tests__", "spec", "specs", "__specs__"]);
const TEST_NAMES = [
  /\.(test|spec)\.[cm]?[jt]sx?$/i, // a.test.js, a.spec.ts
  /_test\.(go|py|rs|exs?|dart)$/i, // a_test.go, a_test.py
  /^test_.+\.py$/i, // test_a.py
  /(Test|Tests|IT)\.(java|kt|cs|scala|php)$/, // UserTest.java, UserTests.cs
  /_spec\.rb$/i, // a_spec.rb
];

/** A file that holds tests, by its folder or its name. */
export function isTestFile(path: string): boolean {
  const parts = path.split("/");
  const name = parts.at(-1) ?? "";
  return parts.slice(0, -1).some((p) => TEST_FOLDERS.has(p.toLowerCase())) || TEST_NAMES.some((re) => re.test(name));
}

interface Marker {
  /** File names it applies to. */
  readonly files: RegExp;
  readonly pattern: RegExp;
  /** Applies in any file of the language, not only in a test file. */
  readonly anyFile: boolean;
}

const JS = /\.([cm]?[jt]sx?|vue|svelte)$/i;
const MARKERS: readonly Marker[] = [
  // Jest, Vitest, Mocha, Jasmine, node:test, Playwright, Cypress
  {
    files: JS,
    pattern:
      /\b(it|test|describe|context|suite|specify)\.skip(If)?\s*\(|\bx(it|test|describe|context|specify)\s*\(|\bthis\.skip\s*\(\s*\)|\{\s*skip\s*:\s*(true|['"`])/,
    anyFile: false,
  },
  // pytest, unittest
  {
    files: /\.py$/i,
    pattern: /@pytest\.mark\.(skip|skipif|xfail)\b|\bpytest\.skip\s*\(|@unittest\.(skip|skipIf|skipUnless|expectedFailure)\b|\.skipTest\s*\(/,
    anyFile: true,
  },
  // Go
  { files: /_test\.go$/i, pattern: /\b[tb]\.Skip(f|Now)?\s*\(/, anyFile: false },
  // Rust
  { files: /\.rs$/i, pattern: /#\[\s*ignore\b/, anyFile: true },
  // JUnit 5 and 4, TestNG, Kotlin
  { files: /\.(java|kt|scala|groovy)$/i, pattern: /@(Disabled|Ignore)\b|@Test\s*\(\s*enabled\s*=\s*false/, anyFile: true },
  // xUnit, NUnit, MSTest
  { files: /\.cs$/i, pattern: /\[\s*(Fact|Theory)\s*\(\s*Skip\s*=|\[\s*Ignore\b/, anyFile: true },
  // RSpec, Minitest
  { files: /\.rb$/i, pattern: /^\s*(xit|xdescribe|xcontext|xspecify)\b|^\s*skip\b|^\s*pending\b/, anyFile: false },
  // PHPUnit
  { files: /\.php$/i, pattern: /\$this->markTestSkipped\s*\(|@group\s+skip\b/, anyFile: false },
];

/** The marker an added line of `path` holds, as written, or null. */
export function skipMarkerIn(path: string, line: string): string | null {
  const test = isTestFile(path);
  for (const marker of MARKERS) {
    if (!marker.files.test(path) || (!marker.anyFile && !test)) continue;
    const found = marker.pattern.exec(line);
    if (found) return found[0].trim();
  }
  return null;
}
