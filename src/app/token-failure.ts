/**
 * A webhook whose installation token cannot be had (the App was uninstalled or suspended since
 * the event, the repository left the installation, or GitHub failed the token request): naruto
 * can neither read nor write anything there, so it logs why and answers the delivery 2xx. A 500
 * would tell GitHub nothing it can act on (it does not redeliver by itself), and nothing here
 * may be read as "no such file" or "no permission": no refusal is sent on that wrong premise.
 */
import type { Context } from "probot";
import { TokenUnavailableError } from "../github/index.ts";

/** Runs `handle`; a {@link TokenUnavailableError} is logged, anything else still fails the delivery. */
export async function unlessTokenFails(context: Pick<Context, "id" | "name" | "log">, handle: () => Promise<unknown>): Promise<void> {
  try {
    await handle();
  } catch (error) {
    if (!(error instanceof TokenUnavailableError)) throw error;
    // The message only: the error's cause holds the token request, which is nothing to log.
    context.log.error(`${context.name} (delivery ${context.id}) not handled: ${error.message}`);
  }
}
