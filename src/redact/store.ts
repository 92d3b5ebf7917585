/**
 * The mission store with every string of the saved document redacted. On GitHub the document is
 * the branch `naruto-state/<mission>`, readable by everyone who can read the repository; locally
 * it is `refs/naruto/missions/<mission>`. What enters an event is redacted where it is made
 * (the agent's run, the verify output); this is the line behind that, for what an agent wrote
 * into other fields (a planner's plan).
 *
 * An item or proof that is the very object redacted for an earlier save (a step shares what it
 * did not change) is not redacted again, and stays one object: the local store then keeps its
 * record instead of writing it again (issue 15: a save costs what changed).
 */
import type { Mission } from "../mission/index.ts";
import type { MissionStore } from "../mission/index.ts";
import { redactJson, type Redactor } from "./redactor.ts";

export function redactingStore(store: MissionStore, redactor: Redactor): MissionStore {
  const done = new WeakMap<object, unknown>();
  const once = <T>(value: T): T => {
    if (value === null || typeof value !== "object") return redactJson(value, redactor);
    if (!done.has(value)) done.set(value, redactJson(value, redactor));
    return done.get(value) as T;
  };
  return {
    load: (id) => store.load(id),
    save: (mission: Mission, expected) => {
      // Field by field, in the document's order: the stored text is the same as a whole redaction.
      const redacted = Object.fromEntries(
        Object.entries(mission).map(([key, value]) => [
          key,
          key === "items" ? mission.items.map(once) : key === "proof" ? once(value) : redactJson(value, redactor),
        ]),
      ) as Mission;
      return store.save(redacted, expected);
    },
    list: () => store.list(),
    discard: (id) => store.discard(id),
  };
}
