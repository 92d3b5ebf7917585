/** What `naruto doctor` found about one check, and the three ways to say it. */

export type Severity = "ok" | "warn" | "fail";

export interface Finding {
  readonly check: string;
  readonly severity: Severity;
  readonly message: string;
  /** What to do, with the exact place; null when there is nothing to do. */
  readonly fix: string | null;
}

export const ok = (check: string, message: string): Finding => ({ check, severity: "ok", message, fix: null });
export const warn = (check: string, message: string, fix: string | null): Finding => ({ check, severity: "warn", message, fix });
export const fail = (check: string, message: string, fix: string): Finding => ({ check, severity: "fail", message, fix });
