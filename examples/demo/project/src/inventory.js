/**
 * An in-memory inventory keyed by SKU. Every change returns a new inventory and leaves the old
 * one as it was, so a caller can keep yesterday's stock next to today's.
 */
export function createInventory(items = []) {
  const bySku = new Map();
  for (const item of items) {
    if (bySku.has(item.sku)) throw new Error(`duplicate sku ${item.sku}: each sku may appear once`);
    bySku.set(item.sku, item);
  }
  const others = (sku) => [...bySku.values()].filter((item) => item.sku !== sku);
  const inventory = Object.freeze({
    /** The item with this sku, or undefined. */
    find: (sku) => bySku.get(sku),
    /** Every item, sorted by sku so that listings are stable. */
    list: () => [...bySku.values()].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0)),
    /** A new inventory with `item` added, or replacing the item with the same sku. */
    put: (item) => createInventory([...others(item.sku), item]),
    /** A new inventory without the item with this sku. */
    remove: (sku) => createInventory(others(sku)),
  });
  return inventory;
}
