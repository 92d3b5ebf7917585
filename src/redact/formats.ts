/**
 * Secrets recognised by their shape (docs/architecture.md, "What leaves"): credentials naruto never
 * held but an agent may print anyway (a key it found on disk, a token another tool minted).
 *
 * Each rule's random part must hold an upper-case letter before it counts. Real keys are random
 * base62 or base64 and always do (36 random characters without one: about 1 in 300 million);
 * naruto's own identifiers never do — item ids, mission ids and branch names are lower case by
 * the plan's rules, commit ids are lower-case hex — so no rule can eat a name the mission needs.
 */
import { REDACTED } from "./redacted.ts";

interface Format {
  readonly name: string;
  readonly pattern: RegExp;
  /** The replacement of one match (default: all of it is `[redacted]`). */
  readonly replace?: (match: string, ...groups: string[]) => string;
}

const UPPER = /[A-Z]/;
/** A match counts only when its random part (after `prefix` characters) holds an upper-case letter. */
const random = (prefix: number) => (match: string) => (UPPER.test(match.slice(prefix)) ? REDACTED : match);

// Every pattern starts with a literal or a bounded class, so that no text (a megabyte of base64
// on one line) makes it backtrack: agents' output is large and untrusted.
export const FORMATS: readonly Format[] = [
  // A private key block, whole; cut off before its END line (a bounded output), to the end.
  { name: "private key", pattern: /-----BEGIN ([A-Z0-9 ]{0,40})PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$(?![\s\S]))/g },
  // An AWS secret key given by its name: `aws_secret_access_key = …`, `AWS_SECRET_ACCESS_KEY: "…"`.
  {
    name: "aws secret key by name",
    pattern: /((?:aws_?)?secret_?access_?key["']?[ \t]{0,8}[:=][ \t]{0,8}["']?)([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi,
    replace: (_m, label: string) => `${label}${REDACTED}`,
  },
  { name: "aws access key id", pattern: /(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])/g },
  // `ghp_` `gho_` `ghu_` `ghs_` `ghr_`: the classic 36 characters, and the long installation
  // token `ghs_<app id>_<JWT>` (about 520 characters, with dots).
  { name: "github token", pattern: /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*/g, replace: random(4) },
  { name: "github fine-grained token", pattern: /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,}/g, replace: random(11) },
  { name: "anthropic key", pattern: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/g, replace: random(7) },
  // OpenAI and the many APIs that copied its `sk-` (`sk-proj-…`, `sk-svcacct-…`, legacy `sk-…`).
  { name: "sk- key", pattern: /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}/g, replace: random(3) },
  // A JSON web token: the Actions runtime and OIDC tokens, an installation token's body.
  { name: "jwt", pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  // The password of a URL (`https://x-access-token:…@github.com/…`, as git prints a remote).
  {
    name: "url password",
    pattern: /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,30}:\/\/[^\s/@:]{0,256}:)([^\s/@]{4,})(?=@)/gi,
    replace: (_m, head: string) => `${head}${REDACTED}`,
  },
  {
    name: "authorization header",
    pattern: /(\bauthorization["']?[ \t]{0,8}[:=][ \t]{0,8}["']?(?:bearer|token|basic)[ \t]{1,8})([A-Za-z0-9._~+/=-]{8,})/gi,
    replace: (_m, head: string) => `${head}${REDACTED}`,
  },
];

/** A 40-character AWS secret access key: base64 of 30 random bytes, mixed case (a hex commit id is not). */
const AWS_SECRET = /(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;
const AWS_KEY_ID = /(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])/;

/**
 * An AWS secret key on a line that names an access key id (`AKIA… wJalr…`, a credentials file,
 * `aws configure list`): known by where it is, not by its shape, which many strings share.
 */
function redactAwsSecretsBesideKeyIds(text: string): string {
  if (!AWS_KEY_ID.test(text)) return text;
  return text
    .split(/(\r\n|\r|\n)/)
    .map((line) => (AWS_KEY_ID.test(line) ? line.replace(AWS_SECRET, REDACTED) : line))
    .join("");
}

/** `text` with every known format replaced by `[redacted]`. */
export function redactFormats(text: string): string {
  let out = redactAwsSecretsBesideKeyIds(text);
  for (const format of FORMATS) {
    format.pattern.lastIndex = 0;
    out = format.replace ? out.replace(format.pattern, format.replace as (match: string, ...rest: unknown[]) => string) : out.replace(format.pattern, REDACTED);
  }
  return out;
}
