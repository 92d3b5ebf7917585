/** Building the fake's world: accounts, users with tokens, repositories on disk, the app. */
import { createBlobLinks } from "./artifacts.ts";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { appKeyPair, newToken } from "./app-auth.ts";
import { narutoAppPermissions } from "./app-manifest.ts";
import { createGitPool } from "./git-store.ts";
import { createCommit, createTree } from "./git-write.ts";
import { POST_RECEIVE_HOOK, PRE_RECEIVE_HOOK } from "./pre-receive.ts";
import { findAccount, isoTime, type Account, type AppPermissions, type RepoState, type Role, type World } from "./state.ts";

export interface AppOptions {
  readonly id?: number;
  readonly slug?: string;
  /** What every installation of the app may do; `metadata: read` is always included. */
  readonly permissions?: AppPermissions;
  /** PEM; a key pair is generated when absent. */
  readonly privateKey?: string;
}

/**
 * What the fake's App may do unless a test says otherwise: exactly what naruto's `app.yml` asks
 * for (app-manifest.ts), so no `workflows` permission, as on a real installation.
 */
export const DEFAULT_APP_PERMISSIONS: AppPermissions = narutoAppPermissions();

export function createWorld(input: { root: string; app?: AppOptions; tokenLifetimeMs?: number; tokenLength?: number; ghesVersion?: string }): World {
  let clockOffset = 0;
  let id = 1000;
  const keys = appKeyPair(input.app?.privateKey);
  const slug = input.app?.slug ?? "naruto";
  const appId = input.app?.id ?? 1;
  const bot: Account = { login: `${slug}[bot]`, id: 900_000 + appId, type: "Bot" };
  const world: World = {
    gits: createGitPool(),
    now: () => Date.now() + clockOffset,
    advanceClock: (ms) => {
      clockOffset += ms;
    },
    nextId: () => ++id,
    root: input.root,
    accounts: new Map([[bot.login.toLowerCase(), bot]]),
    tokens: new Map(),
    defaultRoles: new Map(),
    repos: new Map(),
    app: {
      id: appId,
      slug,
      name: slug,
      bot,
      permissions: { ...(input.app?.permissions ?? DEFAULT_APP_PERMISSIONS), metadata: "read" },
      privateKey: keys.privateKey,
      publicKey: keys.publicKey,
    },
    installations: new Map(),
    dispatches: [],
    installationTokenLifetimeMs: input.tokenLifetimeMs ?? 60 * 60 * 1000,
    // Since 2026 GitHub's installation tokens are about 520 characters: never assume 40.
    installationTokenLength: input.tokenLength ?? 520,
    graphqlAnswerLimit: null,
    ghesVersion: input.ghesVersion ?? null,
    runtimeTokens: new Map(),
    blobs: createBlobLinks(() => world.now()),
    onBranchMove: null,
  };
  return world;
}

function ensureAccount(world: World, login: string, type: Account["type"]): Account {
  const existing = findAccount(world, login);
  if (existing !== undefined) return existing;
  const account: Account = { login, id: world.nextId(), type };
  world.accounts.set(login.toLowerCase(), account);
  return account;
}

/** Adds a user with a personal token; `permission` applies to every repository unless `repos` narrows it. */
export function addUser(world: World, login: string, input: { permission?: Role; repos?: readonly string[] } = {}): { account: Account; token: string } {
  const account = ensureAccount(world, login, "User");
  const token = newToken("ghp_", 40);
  world.tokens.set(token, { kind: "user", login: account.login });
  const role = input.permission ?? "none";
  for (const repo of world.repos.values()) {
    if (input.repos === undefined || input.repos.includes(repo.fullName)) repo.collaborators.set(login.toLowerCase(), role);
  }
  world.defaultRoles.set(login.toLowerCase(), { role, repos: input.repos ?? null });
  return { account, token };
}

export interface CreateRepoInput {
  readonly owner: string;
  readonly name: string;
  /** Files of the first commit on the default branch; no commit at all when absent. */
  readonly files?: Readonly<Record<string, string | Buffer>>;
  readonly defaultBranch?: string;
  readonly private?: boolean;
  /** Issues to open, numbered from 1. */
  readonly issues?: readonly { title: string; body?: string; user?: string }[];
  /**
   * Check every pushed object with git's fsck rules (`receive.fsckObjects`), as github.com does:
   * a tree holding `.git`, `..` or a name twice is refused. Default true; false for a test that
   * needs to push such objects anyway.
   */
  readonly fsckObjects?: boolean;
}

export async function createRepository(world: World, input: CreateRepoInput): Promise<RepoState> {
  const owner = ensureAccount(world, input.owner, "Organization");
  const defaultBranch = input.defaultBranch ?? "main";
  const dir = join(world.root, owner.login, `${input.name}.git`);
  await mkdir(dir, { recursive: true });
  const git = world.gits.get(dir);
  await git.run(["init", "--bare", "-q", "-b", defaultBranch]);
  for (const [key, value] of [
    ["http.receivepack", "true"],
    ["uploadpack.allowAnySHA1InWant", "true"],
    ["core.filesRefLockTimeout", "5000"],
    ["receive.fsckObjects", String(input.fsckObjects ?? true)],
  ] as const) {
    await git.run(["config", key, value]);
  }
  await writeFile(join(dir, "hooks", "pre-receive"), PRE_RECEIVE_HOOK);
  await chmod(join(dir, "hooks", "pre-receive"), 0o755);
  await writeFile(join(dir, "hooks", "post-receive"), POST_RECEIVE_HOOK);
  await chmod(join(dir, "hooks", "post-receive"), 0o755);
  const repo: RepoState = {
    id: world.nextId(),
    owner,
    name: input.name,
    fullName: `${owner.login}/${input.name}`,
    private: input.private ?? true,
    defaultBranch,
    dir,
    collaborators: new Map(),
    issues: new Map(),
    nextNumber: 1,
    pulls: new Map(),
    reviewThreads: [],
    comments: new Map(),
    reactions: [],
    runs: new Map(),
    nextRunNumber: 1,
    checkRuns: new Map(),
    events: [],
    requiredChecks: new Map(),
    artifacts: new Map(),
  };
  for (const [login, { role, repos }] of world.defaultRoles) {
    if (findAccount(world, login) !== undefined && (repos === null || repos.includes(repo.fullName))) repo.collaborators.set(login, role);
  }
  world.repos.set(repo.fullName.toLowerCase(), repo);
  if (![...world.installations.values()].some((i) => i.account.id === owner.id)) {
    const id = world.nextId();
    world.installations.set(id, { id, account: owner, permissions: world.app.permissions });
  }
  if (input.files !== undefined) {
    const blobs = await Promise.all(
      Object.entries(input.files).map(async ([path, content]) => ({
        path,
        mode: "100644" as const,
        type: "blob" as const,
        sha: await git.writeBlob(Buffer.from(content)),
      })),
    );
    const tree = await createTree(git, { entries: blobs });
    const who = { name: "fake-github", email: "fake-github@example.test", date: isoTime(world.now()) };
    const commit = await createCommit(git, { tree, parents: [], message: "Initial commit\n", author: who, committer: who });
    await git.updateRef(`refs/heads/${defaultBranch}`, commit, null);
  }
  for (const issue of input.issues ?? []) {
    const now = world.now();
    const user = ensureAccount(world, issue.user ?? owner.login, issue.user === undefined ? owner.type : "User");
    const number = repo.nextNumber++;
    repo.issues.set(number, {
      number,
      id: world.nextId(),
      title: issue.title,
      body: issue.body ?? null,
      user,
      state: "open",
      createdAt: now,
      updatedAt: now,
      closedAt: null,
      isPull: false,
    });
  }
  return repo;
}
