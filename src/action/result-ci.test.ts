import { describe, expect, it } from "vitest";
import { resultCiOf } from "./result-ci.ts";

describe("resultCiOf", () => {
  it("uses the token that starts workflows when there is one, App or not", () => {
    expect(resultCiOf({ ciToken: "t", app: "true", botLogin: "naruto[bot]" })).toBe("token");
    expect(resultCiOf({ ciToken: "t", app: "", botLogin: "github-actions[bot]" })).toBe("token");
  });

  it("counts on the App when NARUTO_APP says so, or when the App's login writes the comments (naruto init --app sets only that)", () => {
    expect(resultCiOf({ ciToken: "", app: "true", botLogin: "github-actions[bot]" })).toBe("app");
    expect(resultCiOf({ ciToken: "", app: "", botLogin: "naruto[bot]" })).toBe("app");
  });

  it("says none with neither: the workflow's token starts no CI", () => {
    expect(resultCiOf({ ciToken: "", app: "", botLogin: "github-actions[bot]" })).toBe("none");
    expect(resultCiOf({ ciToken: "", app: "false", botLogin: "" })).toBe("none");
  });
});
