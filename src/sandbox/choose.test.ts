/**
 * How the bubblewrap probe decides who commands run as (choose.ts, bwrap.ts): as root, an
 * ordinary user of a user namespace of their own where bwrap can make one; where it cannot,
 * root without one, said in the sandbox's description. A stand-in `bwrap` plays each machine.
 */
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SANDBOX_USER } from "./bwrap.ts";
import { chooseSandbox, probeBwrap } from "./choose.ts";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

/** A stand-in bwrap: prints its version, and fails a run with `--unshare-user` when `userNamespaces` is false. */
async function fakeBwrap(userNamespaces: boolean): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "naruto-fake-bwrap-"));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const bin = join(dir, "bwrap");
  await writeFile(
    bin,
    `#!/bin/sh
[ "$1" = --version ] && { echo "bubblewrap 0.8.0"; exit 0; }
for a in "$@"; do if [ "$a" = --unshare-user ] && [ ${userNamespaces ? 1 : 0} = 0 ]; then echo "bwrap: No permissions to create new namespace" >&2; exit 1; fi; done
exit 0
`,
  );
  await chmod(bin, 0o755);
  return bin;
}

describe("probeBwrap", () => {
  it("as root, runs commands as an ordinary user where bwrap makes a user namespace", async () => {
    expect(await probeBwrap({ binary: await fakeBwrap(true), path: process.env.PATH, uid: 0 })).toEqual({ ok: true, version: "bubblewrap 0.8.0", user: SANDBOX_USER, limitation: null });
  });

  it("as root where it cannot, runs them as root and says what that costs", async () => {
    const binary = await fakeBwrap(false);
    expect(await probeBwrap({ binary, path: process.env.PATH, uid: 0 })).toEqual({ ok: true, version: "bubblewrap 0.8.0", user: null, limitation: expect.stringMatching(/^as root without a user namespace: .*cannot start$/) });
    const sandbox = await chooseSandbox({ mode: "auto", binary, env: { PATH: process.env.PATH }, probe: () => probeBwrap({ binary, path: process.env.PATH, uid: 0 }) });
    expect(sandbox.description).toMatch(/^bwrap 0\.8\.0 \(as root without a user namespace: /);
  });

  it("as an ordinary user, runs them as that user and asks bwrap for nothing more", async () => {
    expect(await probeBwrap({ binary: await fakeBwrap(false), path: process.env.PATH, uid: 1001 })).toEqual({ ok: true, version: "bubblewrap 0.8.0", user: null, limitation: null });
  });
});
