/**
 * Matrix expansion as GitHub documents it: the cross product of the axes, minus `exclude`
 * (partial matches), then each `include` entry extends every combination it does not
 * contradict on an original axis, or becomes a combination of its own.
 */

export type Combination = Readonly<Record<string, unknown>>;

/** A matrix that cannot run (not an object, an axis that is not a list, nothing to run). */
export class MatrixError extends Error {
  override readonly name = "MatrixError";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function listOf(value: unknown, what: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new MatrixError(`${what} must be a list, got ${JSON.stringify(value)}`);
  return value;
}

function matches(combination: Combination, pattern: Record<string, unknown>): boolean {
  return Object.entries(pattern).every(([k, v]) => JSON.stringify(combination[k]) === JSON.stringify(v));
}

/** The combinations of an evaluated `strategy.matrix` (null when the job has no matrix). */
export function expandMatrix(matrix: unknown): Combination[] | null {
  if (matrix === undefined || matrix === null) return null;
  if (!isRecord(matrix)) throw new MatrixError(`strategy.matrix must be an object, got ${JSON.stringify(matrix)}`);
  const axes = Object.entries(matrix).filter(([k]) => k !== "include" && k !== "exclude");
  let combinations: Record<string, unknown>[] = axes.length === 0 ? [] : [{}];
  for (const [name, values] of axes) {
    const list = listOf(values, `matrix axis ${name}`);
    if (list.length === 0) throw new MatrixError(`Matrix vector '${name}' does not contain any values`);
    combinations = combinations.flatMap((c) => list.map((v) => ({ ...c, [name]: v })));
  }
  for (const pattern of listOf(matrix["exclude"], "matrix exclude")) {
    if (!isRecord(pattern)) throw new MatrixError("matrix exclude entries must be objects");
    combinations = combinations.filter((c) => !matches(c, pattern));
  }
  const original = new Set(axes.map(([k]) => k));
  const base = combinations.map((c) => ({ ...c }));
  for (const entry of listOf(matrix["include"], "matrix include")) {
    if (!isRecord(entry)) throw new MatrixError(`matrix include entries must be objects, got ${JSON.stringify(entry)}`);
    let extended = false;
    base.forEach((c, i) => {
      const contradicts = Object.entries(entry).some(([k, v]) => original.has(k) && JSON.stringify(c[k]) !== JSON.stringify(v));
      if (contradicts) return;
      combinations[i] = { ...combinations[i], ...entry };
      extended = true;
    });
    if (!extended) combinations.push({ ...entry });
  }
  if (combinations.length === 0) throw new MatrixError("Matrix vector 'include' does not contain any values");
  if (combinations.length > 256) throw new MatrixError(`a matrix may run at most 256 jobs per workflow run, this one has ${combinations.length}`);
  return combinations;
}

/** GitHub's job name for a matrix leg: `work (a, 1)`. */
export function legName(job: string, combination: Combination | null): string {
  if (combination === null) return job;
  const values = Object.values(combination).map((v) => (typeof v === "object" && v !== null ? JSON.stringify(v) : String(v)));
  return `${job} (${values.join(", ")})`;
}
