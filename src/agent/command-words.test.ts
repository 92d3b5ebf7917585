import { describe, expect, it } from "vitest";
import { commandNamed, commandProgram, commandWords, replaceWords } from "./command-words.ts";

const texts = (command: string) => commandWords(command).map((w) => `${w.first ? "^" : ""}${w.text}${w.literal ? "" : "*"}`);

describe("commandWords", () => {
  it.each([
    ["./my-agent.sh --fast", ["^./my-agent.sh", "--fast"]],
    ["sh -c 'cd x && ./run.sh' arg", ["^sh", "-c", "cd x && ./run.sh", "arg"]],
    ['node "/tmp/my agent/a.mjs" $HOME/x', ["^node", "/tmp/my agent/a.mjs", "$HOME/x*"]],
    ["A=1 B=2 ./run.sh; echo done | tee log", ["A=1", "B=2", "^./run.sh", "^echo", "done", "^tee", "log"]],
    ["printf 'a\\n' > a.txt", ["^printf", "a\\n", "a.txt"]],
    ["cat src/*.ts ~/x `date`", ["^cat", "src/*.ts*", "~/x*", "`date`*"]],
    ["run\\ me # a comment", ["^run me"]],
  ])("%s", (command, expected) => {
    expect(texts(command)).toEqual(expected);
  });
});

describe("commandProgram", () => {
  it.each([
    ["/opt/agents/run.sh --x", "/opt/agents/run.sh"],
    ["A=1 ./run.sh", "./run.sh"],
    ["exec ./run.sh", null],
    ["$AGENT --x", null],
    ["", null],
  ])("%s starts %s", (command, program) => {
    expect(commandProgram(command)?.text ?? null).toBe(program);
  });
});

describe("replaceWords", () => {
  it("replaces words in place, quoting what needs it", () => {
    const command = "./run.sh --in ../data/x.json 'keep this'";
    const [run, , data] = commandWords(command);
    if (run === undefined || data === undefined) throw new Error("no words");
    expect(
      replaceWords(
        command,
        new Map([
          [run, "/home/u/my agents/run.sh"],
          [data, "/home/u/data/x.json"],
        ]),
      ),
    ).toBe("'/home/u/my agents/run.sh' --in /home/u/data/x.json 'keep this'");
  });
});

describe("commandNamed", () => {
  it("names the program on PATH and every absolute path", () => {
    expect(commandNamed("my-agent --config /etc/x.yml /home/u/a.mjs")).toEqual({ programs: ["my-agent"], paths: ["/etc/x.yml", "/home/u/a.mjs"] });
    expect(commandNamed("/opt/a/run.sh $X /tmp/*.txt")).toEqual({ programs: [], paths: ["/opt/a/run.sh"] });
    expect(commandNamed("./run.sh")).toEqual({ programs: [], paths: [] });
  });
});
