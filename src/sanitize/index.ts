/** The public face of `src/sanitize/`: untrusted text in (docs/action.md): what a maintainer could not see on the page never reaches an agent. */
export { sanitizeUntrusted } from "./sanitize-untrusted.ts";
export { sanitizeUntrustedText } from "./sanitize-untrusted.ts";
