/**
 * The state store port (docs/architecture.md): missions live in git, never only in memory, and every
 * save is a compare-and-swap against the version that was read. Two adapters: a local ref
 * (`src/store/git-store.ts`) and a branch on GitHub (`src/github/`).
 */
import type { Mission } from "./document.ts";
import { IllegalEventError } from "./errors.ts";
import type { MissionCommand, MissionEvent } from "./events.ts";
import { step, type StepResult } from "./step.ts";

/** A mission as read, with the opaque version a save must name. */
export interface StoredMission {
  readonly mission: Mission;
  readonly version: string;
}

export type SaveResult = { readonly ok: true; readonly version: string } | { readonly ok: false; readonly reason: "conflict" };

export interface MissionStore {
  load(id: string): Promise<StoredMission | null>;
  /** Saves when the stored version is still `expected` (null: the mission must not exist yet). */
  save(mission: Mission, expected: string | null): Promise<SaveResult>;
  /** Ids of every stored mission. */
  list(): Promise<string[]>;
  /**
   * Removes a mission that never started: GitHub refused what its request needed (a queue branch
   * touching workflow files), so nothing ran and nothing refers to it. No-op when it is gone.
   */
  discard(id: string): Promise<void>;
}

/** Every retry lost the race: something keeps moving the mission. */
export class StoreContentionError extends Error {
  override readonly name = "StoreContentionError";
}

export interface ApplyOptions {
  /** Saves to try before giving up (each after reloading). */
  readonly attempts?: number;
  /** Waits before a retry; jittered so that racing writers spread out. */
  readonly backoff?: (attempt: number) => Promise<void>;
}

/**
 * Applies an event to the stored mission: load, `step`, compare-and-swap; a lost race reloads
 * and applies the event again to the newer mission, so no writer's update is ever lost.
 * An illegal event throws {@link IllegalEventError} and stores nothing.
 */
export async function applyEvent(store: MissionStore, id: string, event: MissionEvent, options: ApplyOptions = {}): Promise<StepResult> {
  const attempts = options.attempts ?? 20;
  const backoff = options.backoff ?? jitter;
  for (let i = 0; i < attempts; i++) {
    const stored = await store.load(id);
    if (stored === null && event.type !== "requested") {
      throw new MissionNotFoundError(id);
    }
    const result = step(stored?.mission ?? null, event);
    if (result.duplicate) return result;
    const saved = await store.save(result.mission, stored?.version ?? null);
    if (saved.ok) return result;
    await backoff(i);
  }
  throw new StoreContentionError(`mission ${id}: ${attempts} saves in a row lost the race; try again`);
}

/** What applying several events in one save did: each event's fate, and the commands in order. */
export interface BatchResult {
  readonly mission: Mission;
  readonly commands: readonly MissionCommand[];
  /** Per event, in order: applied, a duplicate, or refused (the error says why; nothing of it is stored). */
  readonly outcomes: readonly ({ readonly kind: "applied" | "duplicate" } | { readonly kind: "illegal"; readonly error: IllegalEventError })[];
}

/**
 * Applies `events` in order and saves once: a job that learns several things at once (the
 * attempts of a batch started, the legs of a run finished) writes the state once instead of once
 * per event. An illegal event is left out (its outcome says why) and the others still apply, as
 * if each had been applied alone; a lost race reloads and applies them all again.
 */
export async function applyEvents(store: MissionStore, id: string, events: readonly MissionEvent[], options: ApplyOptions = {}): Promise<BatchResult> {
  const attempts = options.attempts ?? 20;
  const backoff = options.backoff ?? jitter;
  for (let i = 0; i < attempts; i++) {
    const stored = await store.load(id);
    if (stored === null) throw new MissionNotFoundError(id);
    let mission = stored.mission;
    let changed = false;
    const commands: MissionCommand[] = [];
    const outcomes: BatchResult["outcomes"][number][] = [];
    for (const event of events) {
      try {
        const result = step(mission, event);
        outcomes.push({ kind: result.duplicate ? "duplicate" : "applied" });
        if (result.duplicate) continue;
        mission = result.mission;
        commands.push(...result.commands);
        changed = true;
      } catch (error) {
        if (!(error instanceof IllegalEventError)) throw error;
        outcomes.push({ kind: "illegal", error });
      }
    }
    if (!changed) return { mission, commands, outcomes };
    const saved = await store.save(mission, stored.version);
    if (saved.ok) return { mission, commands, outcomes };
    await backoff(i);
  }
  throw new StoreContentionError(`mission ${id}: ${attempts} saves in a row lost the race; try again`);
}

export class MissionNotFoundError extends Error {
  override readonly name = "MissionNotFoundError";
  readonly id: string;
  constructor(id: string) {
    super(`no mission ${id}: run \`naruto status\` to list missions`);
    this.id = id;
  }
}

function jitter(attempt: number): Promise<void> {
  const ms = Math.random() * Math.min(5 * 2 ** attempt, 200);
  return new Promise((r) => setTimeout(r, ms));
}
