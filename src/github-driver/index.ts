/**
 * The GitHub driver (DESIGN.md §6): what the App and the Action share — reading `/naruto`
 * comments, deciding who may trigger, and turning the engine's commands into dispatches,
 * comments, pull requests and check runs through the GitHub port.
 */
export { helpText, parseCommand, type NarutoCommand } from "./command.ts";
export { mayTrigger, PERMISSION_ORDER, rank, refusalText, type RepoPermission, type TriggerDecision, type TriggerFacts } from "./gate.ts";
