// The public API of the inventory library: one import for everything a caller needs.
export * from "./item.js";
export * from "./inventory.js";
export * from "./money.js";
