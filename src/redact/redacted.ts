/** What redacted text says instead of a secret: never the value, nor a part or a hash of it. */
export const REDACTED = "[redacted]";

/**
 * Exact values shorter than this are not redacted by value: every "true", "main" or "us-east-1"
 * in a report would go, while a real credential is far longer (GitHub tokens 40, API keys 40+).
 * The known formats (formats.ts) still apply at any length they define.
 */
export const MIN_SECRET_LENGTH = 8;
