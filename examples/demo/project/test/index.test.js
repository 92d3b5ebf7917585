import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as inventory from "../src/index.js";

describe("the public API", () => {
  it("exports the library's building blocks from one module", () => {
    for (const name of ["createItem", "withQuantity", "createInventory", "formatMoney"]) {
      assert.equal(typeof inventory[name], "function", `${name} is exported`);
    }
  });
});
