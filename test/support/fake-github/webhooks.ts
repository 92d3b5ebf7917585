/**
 * Webhook deliveries as GitHub makes them: a POST of the raw JSON body signed with the
 * webhook secret (`x-hub-signature-256: sha256=HMAC`), the event name, a delivery id (a
 * UUID), and GitHub's user agent. A redelivery sends the same id and the same bytes again.
 * GitHub waits 10 s for an answer and never redelivers by itself.
 *
 * Every payload is checked against GitHub's published schema first (webhook-schemas.ts): one
 * that GitHub could never send throws `MalformedPayloadError` and nothing is sent, so a suite
 * cannot pass on a payload only the fake would deliver.
 */
import { createHmac, randomUUID } from "node:crypto";
import { takeWebhookDrop, type Fault, type FaultSource } from "./faults.ts";
import { assertWebhookPayload } from "./webhook-schemas.ts";

export interface DeliverInput {
  readonly event: string;
  readonly payload: unknown;
  /** Defaults to the server's `webhook.url`. */
  readonly url?: string;
  /** Defaults to the server's `webhook.secret`. */
  readonly secret?: string;
}

export interface DeliveryAttempt {
  /** The receiver's HTTP status; null when the delivery was dropped or got no answer. */
  readonly status: number | null;
  readonly dropped: boolean;
  readonly body: string;
  readonly error?: string;
}

export interface Delivery {
  readonly id: string;
  readonly event: string;
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly attempts: DeliveryAttempt[];
}

export interface DeliveryResult extends DeliveryAttempt {
  readonly id: string;
}

export function signWebhook(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

export interface WebhookSender {
  readonly deliveries: Delivery[];
  deliver(input: DeliverInput): Promise<DeliveryResult>;
  redeliver(id: string): Promise<DeliveryResult>;
}

export function createWebhookSender(input: {
  defaults: { url?: string; secret?: string };
  faults: Fault[];
  /** Faults decided per delivery (a seeded campaign). */
  source?: { current: FaultSource | null };
  appId: number;
  timeoutMs?: number;
}): WebhookSender {
  const deliveries: Delivery[] = [];

  async function attempt(delivery: Delivery): Promise<DeliveryResult> {
    let result: DeliveryAttempt;
    if (takeWebhookDrop(input.faults, delivery.event) || input.source?.current?.dropWebhook(delivery.event) === true) {
      result = { status: null, dropped: true, body: "" };
    } else {
      try {
        const response = await fetch(delivery.url, {
          method: "POST",
          headers: delivery.headers,
          body: delivery.body,
          signal: AbortSignal.timeout(input.timeoutMs ?? 10_000),
        });
        result = { status: response.status, dropped: false, body: await response.text() };
      } catch (error) {
        result = { status: null, dropped: false, body: "", error: String(error) };
      }
    }
    delivery.attempts.push(result);
    return { id: delivery.id, ...result };
  }

  return {
    deliveries,
    deliver: async (d) => {
      const url = d.url ?? input.defaults.url;
      const secret = d.secret ?? input.defaults.secret;
      if (url === undefined || secret === undefined) {
        throw new Error("deliver() needs a url and a secret: pass them, or start the server with `webhook: { url, secret }`");
      }
      assertWebhookPayload({ event: d.event, payload: d.payload });
      const id = randomUUID();
      const body = JSON.stringify(d.payload);
      const delivery: Delivery = {
        id,
        event: d.event,
        url,
        body,
        headers: {
          "content-type": "application/json",
          "user-agent": "GitHub-Hookshot/fake",
          "x-github-event": d.event,
          "x-github-delivery": id,
          "x-github-hook-id": "1",
          "x-github-hook-installation-target-type": "integration",
          "x-github-hook-installation-target-id": String(input.appId),
          "x-hub-signature-256": signWebhook(secret, body),
          "x-hub-signature": `sha1=${createHmac("sha1", secret).update(body).digest("hex")}`,
        },
        attempts: [],
      };
      deliveries.push(delivery);
      return attempt(delivery);
    },
    redeliver: async (id) => {
      const delivery = deliveries.find((d) => d.id === id);
      if (delivery === undefined) throw new Error(`no delivery ${id} to redeliver`);
      return attempt(delivery);
    },
  };
}
