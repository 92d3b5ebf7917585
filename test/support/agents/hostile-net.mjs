#!/usr/bin/env node
// A hostile agent that looks for the host's network doors: `hostile-net.mjs`. It makes its
// item's ordinary edit, then tries each target of the prompt line `net-targets: {json}` and says
// in its result summary what answered: `net: model-api=ok dns=203.0.113.10 loopback=ECONNREFUSED …`
// (`ok` with what the server said, or the error code). The test reads the summary.
//
// Targets (all optional): `modelApi`, `lan`, `metadata` and `hostAddress` as `host:port`,
// `loopback` a port on 127.0.0.1, `abstract` the name of an abstract unix socket, `dns` a name to
// resolve. Every server answers one line on connect.
import { lookup } from "node:dns/promises";
import { connect } from "node:net";
import { editAndReport, readPrompt } from "./fake-lib.mjs";

const line = readPrompt()
  .split("\n")
  .find((l) => l.startsWith("net-targets: "));
const targets = line ? JSON.parse(line.slice("net-targets: ".length)) : {};

/** What a connection to `options` got: `ok:<first line>` or the error code. */
function reach(options) {
  return new Promise((resolve) => {
    const socket = connect(options);
    const done = (what) => {
      socket.destroy();
      resolve(what);
    };
    socket.setTimeout(5000, () => done("timeout"));
    socket.on("data", (d) => done(`ok:${String(d).trim()}`));
    socket.on("error", (e) => done(e.code ?? "error"));
    socket.on("end", () => done("closed"));
  });
}

const hostPort = (text) => {
  const [host, port] = text.split(":");
  return { host, port: Number(port) };
};

const results = [];
for (const name of ["modelApi", "lan", "metadata", "hostAddress"]) {
  if (targets[name]) results.push(`${name}=${await reach(hostPort(targets[name]))}`);
}
if (targets.loopback) results.push(`loopback=${await reach({ host: "127.0.0.1", port: targets.loopback })}`);
if (targets.abstract) results.push(`abstract=${await reach({ path: `\0${targets.abstract}` })}`);
if (targets.dns)
  results.push(
    `dns=${await lookup(targets.dns, { family: 4 }).then(
      (a) => a.address,
      (e) => e.code ?? "error",
    )}`,
  );
editAndReport(`net: ${results.join(" ")}`);
