import { describe, expect, it } from "vitest";
import { mayTrigger, type RepoPermission, type TriggerFacts } from "./gate.ts";

function facts(over: Partial<TriggerFacts> & { login?: string; type?: string } = {}): TriggerFacts {
  return {
    sender: { login: over.login ?? "octo-maintainer", id: 7, type: over.type ?? "User" },
    selfLogins: ["naruto[bot]"],
    permission: over.permission ?? "write",
    account: over.account === undefined ? 7 : over.account,
    fromFork: over.fromFork ?? false,
    config: over.config ?? { min_permission: "write", allow_bots: [] },
  };
}

describe("mayTrigger", () => {
  it.each<[RepoPermission, boolean]>([
    ["admin", true],
    ["maintain", true],
    ["write", true],
    ["triage", false],
    ["read", false],
    ["none", false],
  ])("a user with %s permission: %s", (permission, allowed) => {
    expect(mayTrigger(facts({ permission })).allowed).toBe(allowed);
  });

  it("honours a lower min_permission, except on a pull request from a fork", () => {
    const config = { min_permission: "triage" as const, allow_bots: [] };
    expect(mayTrigger(facts({ permission: "triage", config })).allowed).toBe(true);
    const fork = mayTrigger(facts({ permission: "triage", config, fromFork: true }));
    expect(fork).toMatchObject({ allowed: false, silent: false });
    if (!fork.allowed) expect(fork.reason).toContain("fork");
    expect(mayTrigger(facts({ permission: "write", config, fromFork: true })).allowed).toBe(true);
  });

  it("ignores its own comments silently", () => {
    expect(mayTrigger(facts({ login: "naruto[bot]", type: "Bot" }))).toMatchObject({ allowed: false, silent: true });
  });

  it("lets bots in only by exact login", () => {
    const config = { min_permission: "write" as const, allow_bots: ["renovate[bot]"] };
    expect(mayTrigger(facts({ login: "renovate[bot]", type: "Bot", permission: "none", config })).allowed).toBe(true);
    expect(mayTrigger(facts({ login: "evil-renovate[bot]", type: "Bot", permission: "admin", config }))).toMatchObject({ allowed: false, silent: false });
    expect(mayTrigger(facts({ login: "dependabot[bot]", type: "Bot", permission: "write", config })).allowed).toBe(false);
  });

  it("checks the account that wrote the comment, not whoever holds its login now", () => {
    const other = mayTrigger(facts({ permission: "admin", account: 8 }));
    expect(other).toMatchObject({ allowed: false, silent: false });
    if (!other.allowed) expect(other.reason).toMatch(/another account/);
    expect(mayTrigger(facts({ permission: "none", account: null }))).toMatchObject({
      allowed: false,
      reason: "@octo-maintainer has none permission; naruto needs write or more",
    });
  });

  it("explains a refusal", () => {
    const r = mayTrigger(facts({ login: "octo-outsider", permission: "read" }));
    expect(r).toEqual({ allowed: false, silent: false, reason: "@octo-outsider has read permission; naruto needs write or more" });
  });
});
