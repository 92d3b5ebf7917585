import { describe, expect, it } from "vitest";
import { LEAKY, leaksIn } from "../../test/support/leaks.ts";
import { createRedactingStream } from "./stream.ts";
import { createRedactor, formatsOnly, redactJson } from "./redactor.ts";
import { passedNames, secretValues } from "./secrets.ts";
import { loadConfig } from "../config/index.ts";

const SECRET = "Pa55-w0rd!-of-the-agent";

describe("createRedactor: exact values", () => {
  const r = createRedactor({ secrets: [SECRET, "short", undefined, null] });

  it.each<[string, string]>([
    ["as is", `key=${SECRET};`],
    ["in JSON", JSON.stringify({ key: SECRET })],
    ["base64", Buffer.from(SECRET).toString("base64")],
    ["base64 inside a longer encoded text (offset 1)", Buffer.from(`x${SECRET}yz`).toString("base64")],
    ["base64 inside a longer encoded text (offset 2)", Buffer.from(`xy${SECRET}z`).toString("base64")],
    ["base64url", Buffer.from(`x${SECRET}`).toString("base64url")],
    ["hex", Buffer.from(SECRET).toString("hex")],
    ["HEX", Buffer.from(SECRET).toString("hex").toUpperCase()],
    ["URL-encoded", `https://example.test/?k=${encodeURIComponent(SECRET)}`],
  ])("redacts the value %s", (_, text) => {
    const out = r.redact(text);
    expect(out).toContain("[redacted]");
    expect(leaksIn(out, { secret: SECRET, b64: Buffer.from(SECRET).toString("base64"), hex: Buffer.from(SECRET).toString("hex") })).toEqual([]);
  });

  it.each<[string, string]>([
    ["cut in two by a line break", `key ${SECRET.slice(0, 10)}\n${SECRET.slice(10)} done`],
    ["cut in two by a space", `key ${SECRET.slice(0, 7)} ${SECRET.slice(7)} done`],
    ["in chunks of five on lines of their own", `key\n${SECRET.match(/.{1,5}/g)?.join("\n")}\ndone`],
    ["cut by CRLF and tabs", `key ${SECRET.slice(0, 4)}\r\n\t${SECRET.slice(4, 12)}\t${SECRET.slice(12)} done`],
    ["cut by \\n escapes in JSON", JSON.stringify({ key: `${SECRET.slice(0, 9)}\n${SECRET.slice(9)}` })],
    [
      "in base64 wrapped at 8 columns, as base64 -w wraps it",
      Buffer.from(SECRET)
        .toString("base64")
        .match(/.{1,8}/g)
        ?.join("\n") ?? "",
    ],
  ])("redacts the value %s, with what lies between its pieces", (_, text) => {
    const out = r.redact(text);
    expect(out).toContain("[redacted]");
    const joined = out.replace(/\s+|\\[nrt]/g, "");
    for (const form of [SECRET, Buffer.from(SECRET).toString("base64").slice(0, 16)]) expect(joined).not.toContain(form.slice(0, 8));
  });

  it("keeps the text around a value cut in pieces, and words that only look like one joined", () => {
    expect(r.redact(`key ${SECRET.slice(0, 10)}\n${SECRET.slice(10)} done\nnext line`)).toBe("key [redacted] done\nnext line");
    expect(r.redact("Pa55 is a word; w0rd is another")).toBe("Pa55 is a word; w0rd is another");
  });

  it("keeps values shorter than 8 characters, and says which values it holds", () => {
    expect(r.redact("a short word")).toBe("a short word");
    expect(r.values).toEqual([SECRET]);
  });

  it("redacts each line of a value of several lines (a key streamed line by line)", () => {
    const pem = `-----BEGIN OPENSSH PRIVATE KEY-----\n${"b3BlbnNzaC1rZXktdjEAAAAABG5vbmU".repeat(2)}\nAAAAC3NzaC1lZDI1NTE5AAAAIGf2\n-----END OPENSSH PRIVATE KEY-----\n`;
    const lines = createRedactor({ secrets: [pem] });
    expect(lines.redact(`got ${"b3BlbnNzaC1rZXktdjEAAAAABG5vbmU".repeat(2)} and AAAAC3NzaC1lZDI1NTE5AAAAIGf2`)).toBe("got [redacted] and [redacted]");
  });

  it("redacts every string of a JSON value, keeping its shape", () => {
    expect(redactJson({ a: [SECRET, 1, null], b: { c: `x ${SECRET}` } }, r)).toEqual({ a: ["[redacted]", 1, null], b: { c: "x [redacted]" } });
  });
});

describe("createRedactor: known formats", () => {
  // A bare AWS secret key is 40 characters of base64 like many others: only beside its key id
  // or its name (below) is it known; the setting has no format at all.
  it.each(Object.entries(LEAKY).filter(([name]) => name !== "setting" && name !== "awsSecret"))("redacts %s", (_, value) => {
    expect(formatsOnly.redact(`before ${value} after`)).toBe("before [redacted] after");
  });

  it.each<[string, string, string]>([
    ["an AWS secret key beside its key id", `creds ${LEAKY.awsKeyId} ${LEAKY.awsSecret}`, "creds [redacted] [redacted]"],
    ["an AWS secret key by its name", `AWS_SECRET_ACCESS_KEY="${LEAKY.awsSecret}"`, `AWS_SECRET_ACCESS_KEY="[redacted]"`],
    ["a URL's password", "https://x-access-token:abcdEFGH1234@github.com/acme/demo.git", "https://x-access-token:[redacted]@github.com/acme/demo.git"],
    ["an authorization header", "Authorization: Bearer abcdefghijklmnop", "Authorization: Bearer [redacted]"],
    ["a private key block", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\nafter", "[redacted]\nafter"],
  ])("redacts %s", (_, text, expected) => {
    expect(formatsOnly.redact(text)).toBe(expected);
  });

  it.each<[string, string]>([
    ["an item id shaped like a token (lower case)", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"],
    ["an item id starting with sk-", "sk-learn-the-ropes-of-the-code-base"],
    ["a commit id", "0123456789abcdef0123456789abcdef01234567"],
    ["a branch", "naruto/m-1a2b3c--users-api"],
    ["a sentence", "the task is done; sk- prefixed words stay"],
  ])("keeps %s", (_, text) => {
    expect(formatsOnly.redact(text)).toBe(text);
  });
});

describe("createRedactor on large untrusted text", () => {
  // A pattern that backtracks would take hours on these, and the test would time out.
  it.each<[string, string]>([
    ["a megabyte of base64 on one line", Buffer.alloc(768 * 1024, "naruto+/x").toString("base64")],
    ["a megabyte of letters", "a".repeat(1024 * 1024)],
    ["a megabyte of scheme-like words", "ab+cd.ef-".repeat(120_000)],
    ["a megabyte with a key id in it", `AKIAABCDEFGHIJKLMNOP ${"Ab0/".repeat(256 * 1024)}`],
    ["a megabyte of unfinished URLs", "http://user:".repeat(90_000)],
  ])("handles %s", (_, text) => {
    const out = createRedactor({ secrets: [SECRET] }).redact(text);
    expect(out.length).toBeGreaterThan(text.length / 2);
  });
});

describe("secretValues", () => {
  it("takes the passed names (but the basics and the presets' settings) and every credential-named variable", () => {
    const env = {
      PATH: "/usr/local/bin:/usr/bin",
      HOME: "/home/runner",
      ACME_SETTING: "value-one",
      AWS_REGION: "us-east-1",
      CODEX_HOME: "/home/runner/.codex",
      GEMINI_CLI_HOME: "/home/runner",
      GITHUB_TOKEN: "ghs_token-value",
      "INPUT_GITHUB-TOKEN": "input-token-value",
      WEBHOOK_SECRET: "hook-secret",
      GIT_AUTHOR_NAME: "Octo Cat",
      SSH_AUTH_SOCK: "/tmp/agent.sock",
    };
    expect(secretValues({ env, passed: ["ACME_SETTING", "AWS_REGION", "CODEX_HOME", "GEMINI_CLI_HOME", "PATH", "HOME", "UNSET"] }).sort()).toEqual(
      ["value-one", "ghs_token-value", "input-token-value", "hook-secret", "/tmp/agent.sock"].sort(),
    );
  });

  it("lists the names a config passes: its profiles', the presets' and the queue's", () => {
    const loaded = loadConfig("agents:\n  default:\n    command: run\n    env: [ACME_SETTING]\nqueue:\n  env: [VERIFY_TOKEN]\n");
    if (!loaded.ok) throw new Error("config");
    expect(passedNames(loaded.config)).toEqual(expect.arrayContaining(["ACME_SETTING", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "VERIFY_TOKEN"]));
  });
});

describe("createRedactingStream", () => {
  const collect = (chunks: readonly (string | Buffer)[], secrets: readonly string[] = [SECRET]) => {
    const out: string[] = [];
    const stream = createRedactingStream(createRedactor({ secrets }), (t) => out.push(t), { maxHold: 256 });
    for (const c of chunks) stream.push(c);
    stream.end();
    return out;
  };

  it("redacts a value split across chunks, a line at a time", () => {
    const out = collect(["first line\nvalue ", SECRET.slice(0, 5), `${SECRET.slice(5)} end\nlast`]);
    expect(out).toEqual(["first line\n", "value [redacted] end\n", "last"]);
  });

  it("holds the lines of a value cut in pieces by line breaks until its last piece comes", () => {
    const out = collect([`value ${SECRET.slice(0, 9)}\n`, `${SECRET.slice(9, 15)}\n`, `${SECRET.slice(15)} end\nnext\n`]);
    expect(out.join("")).toBe("value [redacted] end\nnext\n");
    // Lines that cannot begin one go at once.
    expect(collect(["first line\n", "second\n"])).toEqual(["first line\n", "second\n"]);
  });

  it("ends lines at a lone \\r, and keeps \\r\\n together across chunks", () => {
    expect(collect(["a\rb", "\r", "\nc"])).toEqual(["a\r", "b\r\n", "c"]);
  });

  it("holds a private key block until its END line", () => {
    const out = collect(["-----BEGIN PRIVATE KEY-----\n", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n", "-----END PRIVATE KEY-----\nok\n"], []);
    expect(out.join("")).toBe("[redacted]\nok\n");
  });

  it("lets go of a line longer than it holds, at a space", () => {
    const long = `${"word ".repeat(60)}${SECRET}`;
    const out = collect([long]);
    expect(out.join("")).toBe(`${"word ".repeat(60)}[redacted]`);
    expect(out.length).toBeGreaterThan(1);
  });

  it("decodes a character split across chunks", () => {
    const bytes = Buffer.from("é\n");
    expect(collect([bytes.subarray(0, 1), bytes.subarray(1)])).toEqual(["é\n"]);
  });
});
