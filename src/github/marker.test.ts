import { describe, expect, it } from "vitest";
import { trackingMarker } from "../report/index.ts";
import { hasMarker, isMarker, markerFor, withMarker } from "./marker.ts";

describe("markers", () => {
  it("builds a marker from a key and accepts the report's markers", () => {
    expect(markerFor("tracking:m-1a2b")).toBe("<!-- naruto:tracking:m-1a2b -->");
    expect(isMarker(trackingMarker("m-1a2b"))).toBe(true);
  });

  it.each(["a b", "x-->y", "", "a>b", "tracking:m-1 --><script>"])("refuses the key %j, which could end the comment or hide text", (key) => {
    expect(() => markerFor(key)).toThrow(TypeError);
  });

  it.each(["<!-- other -->", "<!-- naruto: -->", "<!--naruto:x-->", "<!-- naruto:x --> trailing"])("does not take %j for a naruto marker", (text) => {
    expect(isMarker(text)).toBe(false);
  });

  it("puts the marker first, once", () => {
    const marker = markerFor("verdict:m-1");
    expect(withMarker("body", marker)).toBe(`${marker}\nbody`);
    expect(withMarker(`${marker}\nbody`, marker)).toBe(`${marker}\nbody`);
  });

  it("finds a marker only where naruto puts it: at the start, not quoted later", () => {
    const marker = markerFor("tracking:m-1");
    expect(hasMarker(`${marker}\n### naruto`, marker)).toBe(true);
    expect(hasMarker(`  ${marker}`, marker)).toBe(true);
    expect(hasMarker(`> quoting ${marker}`, marker)).toBe(false);
    expect(hasMarker(null, marker)).toBe(false);
  });
});
