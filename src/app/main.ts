/**
 * The App's server (`npm start`): the one place, with serverless.ts, that reads the process
 * environment. Loads `.env` when there is one, then serves the webhook handler (the same as on
 * a function host) on `WEBHOOK_PATH` (default `/api/github/webhooks`) at PORT (default 3000),
 * within the limits of server.ts (`NARUTO_WEBHOOK_*` change them). Deliveries are answered 202
 * as soon as their signature is checked, and handled after the answer (deliveries.ts);
 * `GET /healthz` says how many are being handled.
 */
import { existsSync } from "node:fs";
import { narutoApp } from "./app.ts";
import { createDeliveryQueue } from "./deliveries.ts";
import { createWebhookServer, webhookLimitsFrom } from "./server.ts";
import { createHandler } from "./serverless.ts";
import { appDepsFrom, probotFrom } from "./settings.ts";

async function main(): Promise<void> {
  // Variables already set win over `.env` (process.loadEnvFile does not overwrite them).
  if (existsSync(".env")) process.loadEnvFile(".env");
  const env = process.env;
  const limits = webhookLimitsFrom(env);
  const probot = probotFrom(env);
  const deps = await appDepsFrom(env, probot);
  await probot.load((app) => {
    narutoApp(app, deps);
  });
  // probotFrom refused to start without WEBHOOK_SECRET.
  const secret = env["WEBHOOK_SECRET"] ?? "";
  // Deliveries are answered 202 at once and handled after (deliveries.ts).
  const queue = createDeliveryQueue({
    onError: (id, error) => probot.log.error({ err: error }, `delivery ${id} failed after its answer; redeliver it from the App's settings to run it again`),
  });
  const health = () => ({ status: "ok", in_flight: queue.inFlight() });
  const server = createWebhookServer({
    handler: createHandler(probot, { queue }),
    path: env["WEBHOOK_PATH"] || "/api/github/webhooks",
    secret,
    limits,
    health,
  });
  const port = Number(env["PORT"] || 3000);
  server.listen(port, env["HOST"] || undefined, () => {
    probot.log.info(`naruto app ${deps.botLogin} listening on port ${port}`);
  });
  // A graceful stop takes no new delivery and lets those taken finish (for at most 25 s: hosts
  // give about 30 between SIGTERM and SIGKILL).
  const stop = () => {
    server.close();
    void queue.drained(25_000).then((drained) => {
      if (!drained) probot.log.warn(`stopping with ${queue.inFlight()} delivery(ies) unfinished; the sweep reconciles their missions`);
      process.exit(0);
    });
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  process.exit(1);
});
