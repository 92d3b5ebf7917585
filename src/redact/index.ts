/**
 * The redactor (docs/architecture.md, "What leaves"): one pure function on every way out of naruto, its
 * secret values chosen from an environment the entry point passes in, and the adapters that put
 * it in front of GitHub, the mission store and streamed output. The public face of `src/redact`.
 */
export { createRedactor, formatsOnly, redactJson, type Redactor } from "./redactor.ts";
export { MIN_SECRET_LENGTH, REDACTED } from "./redacted.ts";
export { redactFormats } from "./formats.ts";
export { isSecretName, passedNames, secretValues } from "./secrets.ts";
export { createRedactingStream, type RedactingStream } from "./stream.ts";
export { redactingGitHub } from "./github.ts";
export { redactingStore } from "./store.ts";
