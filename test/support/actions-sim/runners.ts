/**
 * The repository's runners as GitHub hands them out: at most `quota` jobs run at once (a GitHub
 * Free account's hosted runners: 20; Pro 40, Team 60, Enterprise 500; a self-hosted pool is what
 * it is), the rest wait `queued`, first come first served; and a job runs only on a runner that
 * has every label of its `runs-on`. A job no runner can take waits on GitHub until it gives up
 * (a day); here it fails at once, naming the labels, instead of hanging the test.
 */

export interface RunnerPoolInput {
  /** Jobs of the repository that may run at once. */
  readonly quota: number;
  /** The labels every runner of the pool has (GitHub-hosted: `ubuntu-latest`, `ubuntu-24.04`). */
  readonly labels: readonly string[];
}

export interface Runner {
  /** `sim-runner-N`, as `runner_name` shows it. */
  readonly name: string;
  release(): void;
}

export interface RunnerPool {
  /** Whether the pool's runners have every one of `labels` (case-insensitive, as GitHub matches them). */
  canRun(labels: readonly string[]): boolean;
  /** Resolves once a runner takes the job (in the order jobs asked). */
  acquire(): Promise<Runner>;
  /** Jobs running now, and the most that ever ran at once. */
  readonly running: number;
  readonly peak: number;
  /** Jobs waiting for a runner now, and the most that ever waited at once. */
  readonly waiting: number;
  readonly peakWaiting: number;
}

/** GitHub-hosted Linux runners' labels, the default pool's. */
export const HOSTED_LABELS: readonly string[] = ["ubuntu-latest", "ubuntu-24.04"];

export function createRunnerPool(input: RunnerPoolInput): RunnerPool {
  if (!Number.isInteger(input.quota) || input.quota < 1) throw new Error(`a runner quota is a whole number of jobs, at least 1 (got ${input.quota})`);
  const labels = new Set(input.labels.map((l) => l.toLowerCase()));
  const queue: (() => void)[] = [];
  const free: number[] = Array.from({ length: input.quota }, (_, i) => input.quota - i);
  let running = 0;
  let peak = 0;
  let peakWaiting = 0;

  const take = (): Runner => {
    const n = free.pop() ?? 0;
    running += 1;
    peak = Math.max(peak, running);
    let released = false;
    return {
      name: `sim-runner-${n}`,
      release: () => {
        if (released) return;
        released = true;
        running -= 1;
        free.push(n);
        queue.shift()?.();
      },
    };
  };

  return {
    canRun: (wanted) => wanted.every((l) => labels.has(l.toLowerCase())),
    acquire: () => {
      if (running < input.quota && queue.length === 0) return Promise.resolve(take());
      return new Promise((resolve) => {
        queue.push(() => resolve(take()));
        peakWaiting = Math.max(peakWaiting, queue.length);
      });
    },
    get running() {
      return running;
    },
    get peak() {
      return peak;
    },
    get waiting() {
      return queue.length;
    },
    get peakWaiting() {
      return peakWaiting;
    },
  };
}

/** The labels a job's evaluated `runs-on` asks for: a label, a list of labels, or `{ group, labels }`. */
export function runsOnLabels(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === "object" && value !== null) {
    const labels = (value as Record<string, unknown>)["labels"];
    return labels === undefined ? [] : runsOnLabels(labels);
  }
  return [];
}
