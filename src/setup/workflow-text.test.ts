import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { workflowDiagnostics } from "../doctor/index.ts";
import { AGENT_CHOICES, AGENT_SETUP } from "./agent-setup.ts";
import { renderWorkflow, upgradeWorkflow, type WorkflowChoice } from "./workflow-text.ts";

const TEMPLATE = await readFile(new URL("../../templates/naruto.yml", import.meta.url), "utf8");
const VERSION = "9.9.9";

type Step = { name?: string; run?: string; uses?: string; env?: Record<string, string> };
type Job = { steps: Step[] };
const jobsOf = (text: string) => parse(text) as { jobs: Record<string, Job>; on: Record<string, unknown> };

const CHOICES: WorkflowChoice[] = AGENT_CHOICES.flatMap((agent) => [false, true].map((app) => ({ agent, app })));

describe("the workflow naruto init writes", () => {
  it.each(CHOICES.map((c) => [`${c.agent}${c.app ? " --app" : ""}`, c] as const))(
    "for %s parses with no diagnostic under GitHub's workflow parser",
    async (_name, choice) => {
      const text = renderWorkflow({ template: TEMPLATE, version: VERSION, choice });
      expect(await workflowDiagnostics(text, ".github/workflows/naruto.yml")).toEqual([]);
      expect(text).toContain(`# naruto-template ${VERSION} (naruto init --agent ${choice.agent}${choice.app ? " --app" : ""})`);
    },
  );

  it.each(AGENT_CHOICES.filter((a) => AGENT_SETUP[a].install !== null))(
    "installs %s's CLI, pinned, before naruto's step in every job that runs an agent, and passes its key there",
    (agent) => {
      const { jobs } = jobsOf(renderWorkflow({ template: TEMPLATE, version: VERSION, choice: { agent, app: false } }));
      for (const id of ["plan", "work", "review"]) {
        const steps = jobs[id]?.steps ?? [];
        const install = steps.findIndex((s) => s.run === AGENT_SETUP[agent].install);
        const naruto = steps.findIndex((s) => s.uses?.startsWith("naruto-dev/naruto@") === true);
        expect(install, `${id} installs the CLI`).toBeGreaterThan(-1);
        expect(install, `${id} installs it before naruto's step`).toBeLessThan(naruto);
        expect(AGENT_SETUP[agent].install).toMatch(/[@=]\d+\.\d+\.\d+$/);
        const agentStep = steps.find((s) => s.run === 'node "$NARUTO_CLI"');
        for (const secret of AGENT_SETUP[agent].secrets) expect(agentStep?.env?.[secret]).toBe(`\${{ secrets.${secret} }}`);
      }
      for (const id of ["command", "watch", "queue", "publish", "sweep"])
        expect(JSON.stringify(jobs[id] ?? {})).not.toContain(AGENT_SETUP[agent].install ?? "-");
    },
  );

  it("for your own command installs nothing and passes no key of naruto's choosing", () => {
    const { jobs } = jobsOf(renderWorkflow({ template: TEMPLATE, version: VERSION, choice: { agent: "command", app: false } }));
    const agentStep = jobs["work"]?.steps.find((s) => s.run === 'node "$NARUTO_CLI"');
    expect(Object.keys(agentStep?.env ?? {})).toEqual(["NARUTO_CLI", "NARUTO_PREPARED"]);
  });

  it("leaves out, with the App, the comment trigger and the jobs the App does", () => {
    const withApp = jobsOf(renderWorkflow({ template: TEMPLATE, version: VERSION, choice: { agent: "claude", app: true } }));
    const without = jobsOf(renderWorkflow({ template: TEMPLATE, version: VERSION, choice: { agent: "claude", app: false } }));
    expect(Object.keys(without.jobs)).toEqual(["command", "plan", "work", "watch", "review", "queue", "publish", "sweep"]);
    expect(Object.keys(withApp.jobs)).toEqual(["plan", "work", "review", "queue", "publish", "sweep"]);
    expect(Object.keys(withApp.on)).toEqual(["workflow_dispatch", "schedule"]);
    expect(Object.keys(without.on)).toEqual(["issue_comment", "workflow_dispatch", "schedule"]);
  });
});

describe("naruto upgrade's text", () => {
  const mine = (text: string) =>
    text
      .replace(
        "      - name: Install Codex CLI\n        run: npm install -g @openai/codex@0.169.0\n      # <<< naruto yours: work-install",
        "      - name: Install Codex CLI\n        run: npm install -g @openai/codex@0.170.0\n      - run: pip install -r requirements.txt\n      # <<< naruto yours: work-install",
      )
      .replace(
        "          # Variables queue.verify needs (listed in queue.env of the config), never a GitHub token.\n",
        "          DATABASE_URL: ${{ secrets.DATABASE_URL }}\n",
      );
  const older = (text: string) =>
    text.replace(`# naruto-template ${VERSION} `, "# naruto-template 0.0.1 ").replace('    - cron: "*/15 * * * *"', '    - cron: "*/20 * * * *"');

  it("keeps what is inside the blocks, brings the rest to this version's template, and records the choice", () => {
    const current = older(mine(renderWorkflow({ template: TEMPLATE, version: VERSION, choice: { agent: "codex", app: true } })));
    const result = upgradeWorkflow({ current, template: TEMPLATE, version: "10.0.0" });
    if (result.kind !== "upgraded") throw new Error("not upgraded");
    expect(result.text).toBe(mine(renderWorkflow({ template: TEMPLATE, version: "10.0.0", choice: { agent: "codex", app: true } })));
    expect(result.from).toBe("0.0.1");
    expect(result.choice).toEqual({ agent: "codex", app: true });
    expect(result.kept).toContain("work-install");
    expect(result.added).toEqual([]);
  });

  it("changes nothing in a file that is already this version's", () => {
    const current = mine(renderWorkflow({ template: TEMPLATE, version: VERSION, choice: { agent: "gemini", app: false } }));
    const result = upgradeWorkflow({ current, template: TEMPLATE, version: VERSION });
    expect(result.kind === "upgraded" && result.text).toBe(current);
  });

  it("fills a block the new template adds with the choice's text, and hands back one it dropped", () => {
    const next = TEMPLATE.replace(
      "      # >>> naruto yours: queue-install",
      "      # >>> naruto yours: queue-extra\n      # <<< naruto yours: queue-extra\n      # >>> naruto yours: queue-install",
    );
    const current = renderWorkflow({ template: TEMPLATE, version: VERSION, choice: { agent: "claude", app: false } }).replace(
      / *# >>> naruto yours: review-env\n[\s\S]*?# <<< naruto yours: review-env\n/,
      "          ANTHROPIC_API_KEY: ${{ secrets.ANTHROPIC_API_KEY }}\n",
    );
    const result = upgradeWorkflow({
      current,
      template: next.replace(/ *# >>> naruto yours: plan-env\n[\s\S]*?# <<< naruto yours: plan-env\n/, ""),
      version: VERSION,
    });
    if (result.kind !== "upgraded") throw new Error("not upgraded");
    expect(result.added).toEqual(["review-env", "queue-extra"]);
    expect(result.dropped).toEqual([{ name: "plan-env", body: "          ANTHROPIC_API_KEY: ${{ secrets.ANTHROPIC_API_KEY }}\n" }]);
  });

  it("cannot tell what is yours in a file copied by hand before there were blocks", () => {
    const unmarked = TEMPLATE.split("\n")
      .filter((l) => !/# (>>>|<<<) naruto|naruto-template/.test(l))
      .join("\n");
    expect(upgradeWorkflow({ current: unmarked, template: TEMPLATE, version: VERSION })).toEqual({ kind: "unmarked" });
  });
});
