/**
 * A user renames their account, as on GitHub: the account keeps its numeric id, its roles, its
 * tokens and everything it wrote (which now shows the new login); the old login is free at once,
 * so another account may take it (`addUser(oldLogin)` then makes a new account with a new id).
 * The roles are stored by login here, so they move with the account.
 */
import { findAccount, type World } from "./state.ts";

export function renameUser(world: World, input: { from: string; to: string }): void {
  const account = findAccount(world, input.from);
  if (account === undefined || account.type !== "User") throw new Error(`no user ${input.from}`);
  if (findAccount(world, input.to) !== undefined) throw new Error(`the login ${input.to} is taken`);
  const [from, to] = [input.from.toLowerCase(), input.to.toLowerCase()];
  world.accounts.delete(from);
  account.login = input.to;
  world.accounts.set(to, account);
  for (const repo of world.repos.values()) {
    const role = repo.collaborators.get(from);
    if (role === undefined) continue;
    repo.collaborators.delete(from);
    repo.collaborators.set(to, role);
  }
  const defaults = world.defaultRoles.get(from);
  if (defaults !== undefined) {
    world.defaultRoles.delete(from);
    world.defaultRoles.set(to, defaults);
  }
  for (const [token, credential] of world.tokens) {
    if (credential.kind === "user" && credential.login.toLowerCase() === from) world.tokens.set(token, { kind: "user", login: input.to });
  }
}
