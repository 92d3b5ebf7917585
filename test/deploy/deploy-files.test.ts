/**
 * The files that deploy the App: the Dockerfile, checked by a Dockerfile linter (the engine of
 * VS Code's Docker extension, dockerfile-utils; there is no Docker engine where the tests run,
 * so the image itself is built only where one is: .ci/run) and by what this project asks of
 * it; and .env.example, which names every variable the App reads.
 */
import { readdir, readFile } from "node:fs/promises";
import { validate, ValidationSeverity } from "dockerfile-utils";
import { describe, expect, it } from "vitest";

const read = (path: string) => readFile(new URL(`../../${path}`, import.meta.url), "utf8");
const DOCKERFILE = await read("Dockerfile");

/** The last stage: what the image runs. */
const finalStage = DOCKERFILE.slice(DOCKERFILE.lastIndexOf("\nFROM "));

describe("the Dockerfile", () => {
  it("has no problem the linter finds, with every check it has at its strictest", () => {
    const all = {
      deprecatedMaintainer: ValidationSeverity.ERROR,
      directiveCasing: ValidationSeverity.ERROR,
      emptyContinuationLine: ValidationSeverity.ERROR,
      instructionCasing: ValidationSeverity.ERROR,
      instructionCmdMultiple: ValidationSeverity.ERROR,
      instructionEntrypointMultiple: ValidationSeverity.ERROR,
      instructionHealthcheckMultiple: ValidationSeverity.ERROR,
      instructionJSONInSingleQuotes: ValidationSeverity.ERROR,
      instructionWorkdirRelative: ValidationSeverity.ERROR,
    };
    expect(validate(DOCKERFILE, all).map((d) => `${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it("would be refused by the linter if it were broken (the check can fail)", () => {
    expect(validate(`${DOCKERFILE}\nHEALTHCHECK CMD true\nEXPOSE not-a-port\n`).length).toBeGreaterThan(0);
  });

  it("installs from the lock file, runs as an unprivileged user, health-checks the server and runs what npm start runs", async () => {
    expect(DOCKERFILE).toMatch(/^COPY package\.json package-lock\.json \.\/$/m);
    expect(DOCKERFILE).toMatch(/^RUN npm ci\b/m);
    expect(DOCKERFILE).toMatch(/npm prune --omit=dev/);
    expect(finalStage).toMatch(/^USER node$/m);
    expect(finalStage.indexOf("USER node")).toBeLessThan(finalStage.indexOf("CMD "));
    expect(finalStage).toMatch(/^HEALTHCHECK .*\n.*\/healthz/m);
    const pkg = JSON.parse(await read("package.json")) as { scripts: Record<string, string> };
    expect(finalStage).toContain(`CMD ["node", "${pkg.scripts["start"]?.replace(/^node /, "")}"]`);
    expect(DOCKERFILE).toMatch(/^FROM node:\d+-bookworm-slim AS build$/m);
  });
});

describe(".env.example", () => {
  it("names every variable the App reads", async () => {
    const text = await read(".env.example");
    const listed = new Set([...text.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
    const sources = (await readdir(new URL("../../src/app/", import.meta.url))).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
    const read_: string[] = [];
    for (const file of sources) {
      const source = await read(`src/app/${file}`);
      for (const [, name] of source.matchAll(/"((?:APP|PRIVATE|WEBHOOK|NARUTO|GHE|LOG)_[A-Z0-9_]+|PORT|HOST)"/g)) if (name !== undefined) read_.push(name);
    }
    // Probot's own (createProbot reads them from the same environment).
    read_.push("APP_ID", "PRIVATE_KEY", "PRIVATE_KEY_PATH", "WEBHOOK_SECRET", "GHE_HOST", "GHE_PROTOCOL", "LOG_LEVEL", "LOG_FORMAT");
    expect([...new Set(read_)].filter((name) => !listed.has(name))).toEqual([]);
    expect(read_.length).toBeGreaterThan(15);
  });
});
