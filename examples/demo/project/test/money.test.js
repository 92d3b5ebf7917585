import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatMoney } from "../src/money.js";

describe("formatMoney", () => {
  it("writes cents as units with two decimals", () => {
    assert.equal(formatMoney(1250), "12.50");
    assert.equal(formatMoney(5), "0.05");
    assert.equal(formatMoney(0), "0.00");
  });

  it("keeps the sign of a negative amount", () => {
    assert.equal(formatMoney(-199), "-1.99");
  });

  it("refuses fractions of a cent", () => {
    assert.throws(() => formatMoney(1.5), TypeError);
  });
});
