/**
 * Runs the fake GitHub on its own (README, "naruto run --json"):
 *
 *   npm run fake-github -- [--port N] [--workflow FILE] [--webhook-url URL --webhook-secret S]
 *
 * It seeds repository `acme/demo` (one commit on `main` with a README and
 * `.github/workflows/naruto.yml` — a placeholder, or FILE — and issue #1), a maintainer
 * `octo-maintainer` (write) and an outsider `octo-outsider` (read), then prints
 *
 *   url http://127.0.0.1:N
 *   token octo-maintainer TOKEN
 *   token octo-outsider TOKEN
 *   app APP_ID PRIVATE_KEY_FILE
 *
 * and serves until SIGINT or SIGTERM. The REST API answers at `/` and at `/api/v3/`; git at
 * `http://x-access-token:TOKEN@127.0.0.1:N/acme/demo.git`.
 */
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startFakeGitHub } from "../test/support/fake-github/index.ts";

/** A stand-in until the Action's template exists; `--workflow` seeds the real one. */
const PLACEHOLDER_WORKFLOW = `# Placeholder for naruto's workflow: the Action ships the real template.
name: naruto
on:
  workflow_dispatch:
jobs:
  placeholder:
    runs-on: ubuntu-latest
    steps:
      - run: echo "placeholder"
`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "0" },
      workflow: { type: "string" },
      "webhook-url": { type: "string" },
      "webhook-secret": { type: "string" },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`--port must be a port number, got ${values.port}`);
  const github = await startFakeGitHub({
    port,
    webhook: {
      ...(values["webhook-url"] !== undefined ? { url: values["webhook-url"] } : {}),
      ...(values["webhook-secret"] !== undefined ? { secret: values["webhook-secret"] } : {}),
    },
  });
  const workflow = values.workflow === undefined ? PLACEHOLDER_WORKFLOW : await readFile(values.workflow, "utf8");
  await github.createRepo({
    owner: "acme",
    name: "demo",
    files: { "README.md": "# demo\n\nA repository seeded by the fake GitHub.\n", ".github/workflows/naruto.yml": workflow },
    issues: [{ title: "Try naruto", body: "A seeded issue to comment `/naruto <task>` on.", user: "octo-maintainer" }],
  });
  const maintainer = github.addUser("octo-maintainer", { permission: "write" });
  const outsider = github.addUser("octo-outsider", { permission: "read" });
  const keyFile = join(tmpdir(), `fake-github-app-${process.pid}.pem`);
  await writeFile(keyFile, github.app.privateKey, { mode: 0o600 });

  process.stdout.write(
    [
      `url ${github.url}`,
      `token ${maintainer.login} ${maintainer.token}`,
      `token ${outsider.login} ${outsider.token}`,
      `app ${github.app.id} ${keyFile}`,
      "",
    ].join("\n"),
  );

  const stop = (): void => {
    github.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`fake-github: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
