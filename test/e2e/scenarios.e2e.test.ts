/**
 * The end-to-end scenarios under vitest. They take minutes (whole missions through the
 * simulator), so `npm test` leaves them to `npm run e2e` (scripts/e2e.ts, the §13 lines) unless
 * NARUTO_E2E=1: `NARUTO_E2E=1 npx vitest run test/e2e`.
 */
import { describe, it } from "vitest";
import { SCENARIOS } from "./scenarios/index.ts";

describe.runIf(process.env["NARUTO_E2E"] === "1")("end-to-end scenarios", () => {
  for (const scenario of SCENARIOS) {
    it(scenario.name, () => scenario.run(), 15 * 60_000);
  }
});
