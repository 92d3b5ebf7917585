import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createInventory } from "../src/inventory.js";
import { createItem } from "../src/item.js";

const tea = createItem({ sku: "TEA-001", name: "Green tea", price: 450, quantity: 12 });
const mug = createItem({ sku: "MUG-002", name: "Mug", price: 900, quantity: 3 });

describe("createInventory", () => {
  it("finds items by sku", () => {
    const stock = createInventory([tea, mug]);
    assert.equal(stock.find("MUG-002"), mug);
    assert.equal(stock.find("NOPE-1"), undefined);
  });

  it("lists items sorted by sku", () => {
    assert.deepEqual(createInventory([tea, mug]).list().map((item) => item.sku), ["MUG-002", "TEA-001"]);
  });

  it("refuses the same sku twice", () => {
    assert.throws(() => createInventory([tea, tea]), /duplicate sku TEA-001/);
  });

  it("puts and removes without changing the inventory it started from", () => {
    const before = createInventory([tea]);
    const after = before.put(mug).remove("TEA-001");
    assert.deepEqual(after.list(), [mug]);
    assert.deepEqual(before.list(), [tea]);
  });

  it("replaces an item with the same sku", () => {
    const cheaper = createItem({ ...tea, price: 400 });
    assert.equal(createInventory([tea]).put(cheaper).find("TEA-001").price, 400);
  });
});
