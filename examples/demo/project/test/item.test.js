import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createItem, withQuantity } from "../src/item.js";

const tea = () => createItem({ sku: "TEA-001", name: "Green tea", price: 450, quantity: 12 });

describe("createItem", () => {
  it("keeps the fields it is given", () => {
    assert.deepEqual({ ...tea() }, { sku: "TEA-001", name: "Green tea", price: 450, quantity: 12 });
  });

  it("starts with nothing in stock when no quantity is given", () => {
    assert.equal(createItem({ sku: "MUG-002", name: "Mug", price: 900 }).quantity, 0);
  });

  it("returns a frozen value", () => {
    assert.ok(Object.isFrozen(tea()));
  });
});

describe("withQuantity", () => {
  it("returns a new item and leaves the old one alone", () => {
    const before = tea();
    const after = withQuantity(before, 3);
    assert.equal(after.quantity, 3);
    assert.equal(before.quantity, 12);
  });
});
