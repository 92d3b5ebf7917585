import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createHeap } from "./heap.ts";

describe("createHeap", () => {
  it("is empty at first", () => {
    const heap = createHeap<number>((a, b) => a < b);
    expect([heap.size, heap.peek(), heap.pop()]).toEqual([0, undefined, undefined]);
  });

  it("pops in order, whatever was pushed and popped between", () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer(), { nil: null })), (ops) => {
        // A number pushes it, null pops: the heap must always agree with a sorted array.
        const heap = createHeap<number>((a, b) => a < b);
        const model: number[] = [];
        for (const op of ops) {
          if (op === null) {
            model.sort((a, b) => a - b);
            expect(heap.pop()).toBe(model.shift());
          } else {
            heap.push(op);
            model.push(op);
          }
          expect(heap.size).toBe(model.length);
          expect(heap.peek()).toBe(model.length === 0 ? undefined : Math.min(...model));
        }
      }),
    );
  });
});
