/**
 * Where a system program is: on PATH, or in the system's own folders (an ordinary user's PATH
 * often lacks the `sbin` ones, where `ip` lives).
 */
import { delimiter } from "node:path";
import { whichProgram } from "./executables.ts";

const SYSTEM_BINS = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

/** `name` on `path`, then in the system's folders; null when nowhere. */
export function findProgram(name: string, path: string | undefined): Promise<string | null> {
  return whichProgram(name, [path ?? "", ...SYSTEM_BINS].join(delimiter));
}
