/** Which URLs of an agent's environment are its endpoints (endpoints.ts). */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PRESETS } from "../config/index.ts";
import { agentEndpoints, codexBaseUrls, ENDPOINT_VARIABLE } from "./endpoints.ts";

describe("agentEndpoints", () => {
  it("finds every preset's endpoint variables by the one rule", () => {
    const named = Object.values(PRESETS).flatMap((p) => p.env.filter((n) => /BASE_URL|API_BASE|_PROXY$/.test(n) && !/^no_proxy$/i.test(n)));
    expect(named).toContain("ANTHROPIC_BASE_URL");
    expect(named).toContain("GOOGLE_GEMINI_BASE_URL");
    expect(named).toContain("OPENAI_API_BASE");
    for (const name of named) expect(name).toMatch(ENDPOINT_VARIABLE);
    expect("NO_PROXY").not.toMatch(ENDPOINT_VARIABLE);
    expect("ANTHROPIC_API_KEY").not.toMatch(ENDPOINT_VARIABLE);
  });

  it("reads the endpoint variables' values, and Codex's providers from its config.toml", async () => {
    const home = await mkdtemp(join(tmpdir(), "naruto-endpoints-"));
    try {
      await writeFile(
        join(home, "config.toml"),
        `model_provider = "x"\n[model_providers.x]\nbase_url = "http://127.0.0.1:4000/v1"\n[model_providers.y]\n base_url='http://10.1.2.3:8080'\n`,
      );
      const urls = await agentEndpoints({
        ANTHROPIC_BASE_URL: "http://localhost:4000",
        OLLAMA_API_BASE: "http://127.0.0.1:11434",
        https_proxy: "http://127.0.0.1:3128",
        NO_PROXY: "localhost",
        ANTHROPIC_API_KEY: "http://not-an-endpoint",
        CODEX_HOME: home,
      });
      expect(urls.sort()).toEqual([
        "http://10.1.2.3:8080",
        "http://127.0.0.1:11434",
        "http://127.0.0.1:3128",
        "http://127.0.0.1:4000/v1",
        "http://localhost:4000",
      ]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it("reads nothing from a Codex home without a config", async () => {
    expect(await agentEndpoints({ CODEX_HOME: "/nonexistent/naruto" })).toEqual([]);
    expect(codexBaseUrls('base_url = "\\e"')).toEqual([]);
  });
});
