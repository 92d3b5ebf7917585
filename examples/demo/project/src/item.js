/**
 * A stock item: what is sold (sku, name), its unit price in cents, and how many are in stock.
 * Items are frozen values: the inventory replaces an item instead of changing it, so an old
 * inventory never changes under a caller that still holds it.
 */
export function createItem({ sku, name, price, quantity = 0 }) {
  return Object.freeze({ sku, name, price, quantity });
}

/** The same item with another quantity. */
export function withQuantity(item, quantity) {
  return createItem({ ...item, quantity });
}
