/**
 * Whether the current user can still become root without a password (`sudo -n true`). On a
 * hosted runner the job's user may; the workflow removes that before any agent step
 * (templates/naruto.yml), since root in the job could undo the sandbox (unload the AppArmor
 * profile, read other processes' memory). Absent sudo, or one that asks for a password, is "no".
 */
import { spawn } from "node:child_process";

export function sudoWorks(env: Readonly<Record<string, string | undefined>>): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn("sudo", ["-n", "true"], { stdio: "ignore", env: { PATH: env.PATH ?? "/usr/bin:/bin" } });
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.on("error", () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
  });
}
