/**
 * The mission store with every string of the saved document redacted. On GitHub the document is
 * the branch `naruto-state/<mission>`, readable by everyone who can read the repository; locally
 * it is `refs/naruto/missions/<mission>`. What enters an event is redacted where it is made
 * (the agent's run, the verify output); this is the line behind that, for what an agent wrote
 * into other fields (a planner's plan).
 */
import type { Mission } from "../mission/document.ts";
import type { MissionStore } from "../mission/store.ts";
import { redactJson, type Redactor } from "./redactor.ts";

export function redactingStore(store: MissionStore, redactor: Redactor): MissionStore {
  return {
    load: (id) => store.load(id),
    save: (mission: Mission, expected) => store.save(redactJson(mission, redactor), expected),
    list: () => store.list(),
    discard: (id) => store.discard(id),
  };
}
