#!/usr/bin/env node
// A hostile agent that takes what the machine has: `hostile-limits.mjs ATTACK [AMOUNT]`. It makes
// its item's ordinary edit at the end (so that, if nothing stops it, its item integrates); first:
//
// - `fork-bomb N`: starts processes until it has N of them (default 400), trying again whenever
//   the system refuses one, as a fork bomb does (bounded, so that on a machine without limits it
//   ends by itself);
// - `memory-hog MIB [RATE]`: takes memory 16 MiB at a time, every byte written, until it holds MIB
//   (default 512), at RATE MiB a second (default 160; 0: as fast as it can).
//
// It then says what it got in its result summary ("ATTACK: did …") and exits; what it started
// dies with its sandbox.
import { spawn } from "node:child_process";
import { editAndReport, sleep } from "./fake-lib.mjs";

const attack = process.argv[2] ?? "";
const amount = Number(process.argv[3] ?? (attack === "fork-bomb" ? 400 : 512));
const rate = Number(process.argv[4] ?? 160);

async function forkBomb() {
  let started = 0;
  while (started < amount) {
    const ok = await new Promise((resolve) => {
      const child = spawn("sleep", ["60"], { stdio: "ignore" });
      child.once("spawn", () => resolve(true));
      child.once("error", () => resolve(false));
    });
    if (ok) started++;
    else await sleep(5);
  }
  return `started ${started} processes`;
}

async function memoryHog() {
  const held = [];
  while (held.length * 16 < amount) {
    held.push(Buffer.alloc(16 * 1024 * 1024, held.length + 1));
    // At 160 MiB a second the watch, which looks every 20 ms past half the limit, sees it past the
    // limit even when late; a faster hog can reach the RLIMIT_DATA backstop (twice the limit) first.
    if (rate > 0) await sleep((16 * 1000) / rate);
  }
  return `held ${held.length * 16} MiB`;
}

const attacks = { "fork-bomb": forkBomb, "memory-hog": memoryHog };
let summary;
try {
  summary = `${attack}: did ${await attacks[attack]()}`;
} catch (error) {
  summary = `${attack}: failed: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
}
editAndReport(summary);
process.exit(0);
