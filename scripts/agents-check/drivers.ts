/**
 * The CLIs `npm run agents-check` runs, one driver each (types.ts). To check another CLI, write
 * its driver (and its vendor's scripted server) and add it here.
 */
import { claude } from "./claude.ts";
import { codex } from "./codex.ts";
import { gemini } from "./gemini.ts";
import type { CliDriver } from "./types.ts";

export const DRIVERS: readonly CliDriver[] = [claude, codex, gemini];
