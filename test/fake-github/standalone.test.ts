/** `npm run fake-github` (scripts/fake-github.ts) prints README, "naruto run --json"'s contract lines and serves until SIGTERM. */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("../../scripts/fake-github.ts", import.meta.url));

describe("the standalone fake GitHub", () => {
  it("prints url and token lines, serves acme/demo at /api/v3 and over git, and stops on SIGTERM", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", SCRIPT, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    const exited = once(child, "exit");
    try {
      const lines: string[] = [];
      for await (const line of createInterface({ input: child.stdout })) {
        lines.push(line);
        if (line.startsWith("app ")) break;
      }
      expect(lines[0]).toMatch(/^url http:\/\/127\.0\.0\.1:\d+$/);
      expect(lines.slice(1, 3)).toEqual([expect.stringMatching(/^token octo-maintainer \S+$/), expect.stringMatching(/^token octo-outsider \S+$/)]);
      const url = (lines[0] ?? "").split(" ")[1] ?? "";
      const token = (lines[1] ?? "").split(" ")[2] ?? "";
      const outsider = (lines[2] ?? "").split(" ")[2] ?? "";

      const headers = { authorization: `token ${token}` };
      const issue = await fetch(`${url}/api/v3/repos/acme/demo/issues/1`, { headers });
      expect(await issue.json()).toMatchObject({ number: 1, state: "open" });
      const workflow = await fetch(`${url}/repos/acme/demo/contents/.github/workflows/naruto.yml`, { headers });
      expect(workflow.status).toBe(200);
      const permission = await fetch(`${url}/repos/acme/demo/collaborators/octo-outsider/permission`, { headers: { authorization: `token ${outsider}` } });
      expect(await permission.json()).toMatchObject({ permission: "read" });
      const refs = await fetch(`${url}/acme/demo.git/info/refs?service=git-upload-pack`, {
        headers: { authorization: `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}` },
      });
      expect(await refs.text()).toContain("refs/heads/main");
    } finally {
      child.kill("SIGTERM");
    }
    const [code, signal] = await exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
  });
});
