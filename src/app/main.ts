/**
 * The App's server (`npm start`): the one place, with serverless.ts, that reads the process
 * environment. Loads `.env` when there is one, then serves the webhook handler (the same as on
 * a function host) on `WEBHOOK_PATH` (default `/api/github/webhooks`) at PORT (default 3000).
 */
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import { narutoApp } from "./app.ts";
import { webhookListener } from "./server.ts";
import { createHandler } from "./serverless.ts";
import { appDepsFrom, probotFrom } from "./settings.ts";

async function main(): Promise<void> {
  // Variables already set win over `.env` (process.loadEnvFile does not overwrite them).
  if (existsSync(".env")) process.loadEnvFile(".env");
  const env = process.env;
  const probot = probotFrom(env);
  const deps = await appDepsFrom(env, probot);
  await probot.load((app) => {
    narutoApp(app, deps);
  });
  const server = createServer(webhookListener(createHandler(probot), { path: env["WEBHOOK_PATH"] || "/api/github/webhooks" }));
  const port = Number(env["PORT"] || 3000);
  server.listen(port, env["HOST"] || undefined, () => {
    probot.log.info(`naruto app ${deps.botLogin} listening on port ${port}`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  process.exit(1);
});
