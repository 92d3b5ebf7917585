#!/usr/bin/env node
// The servers of the stand-in network (stand-in-network.ts), started inside its namespaces:
// `network-stand-ins.mjs SPEC` where SPEC is JSON `{ tcp: [{ host, port, says }], abstract:
// [{ name, says }], dns: { host, names: { name: address } } }`. Every TCP or unix server answers
// one line (`says`) and closes; the DNS server answers A queries for `names` (NXDOMAIN for the
// rest, no answer for other types). Prints `ready` once everything listens.
import { createSocket } from "node:dgram";
import { createServer } from "node:net";

const spec = JSON.parse(process.argv[2] ?? "{}");
const listening = [];

function serve(says, listen) {
  const server = createServer((socket) => socket.end(`${says}\n`));
  listening.push(new Promise((resolve, reject) => server.once("error", reject).listen(listen, resolve)));
}

for (const t of spec.tcp ?? []) serve(t.says, { host: t.host, port: t.port });
for (const a of spec.abstract ?? []) serve(a.says, { path: `\0${a.name}` });

/** The first question's name, type and where it ends, of a DNS query. */
function question(query) {
  const labels = [];
  let at = 12;
  while (query[at] !== 0 && at < query.length) {
    labels.push(query.subarray(at + 1, at + 1 + query[at]).toString("ascii"));
    at += query[at] + 1;
  }
  return { name: labels.join(".").toLowerCase(), type: query.readUInt16BE(at + 1), end: at + 5 };
}

if (spec.dns) {
  const socket = createSocket("udp4");
  socket.on("message", (query, from) => {
    const q = question(query);
    const address = spec.dns.names[q.name];
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // the query's id
    header.writeUInt16BE(0x8180 | (address === undefined ? 3 : 0), 2); // a response, recursion available; NXDOMAIN when unknown
    header.writeUInt16BE(1, 4);
    const answer =
      address !== undefined && q.type === 1 ? Buffer.from([0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, ...address.split(".").map(Number)]) : Buffer.alloc(0);
    header.writeUInt16BE(answer.length > 0 ? 1 : 0, 6);
    socket.send(Buffer.concat([header, query.subarray(12, q.end), answer]), from.port, from.address);
  });
  listening.push(new Promise((resolve, reject) => socket.once("error", reject).bind(53, spec.dns.host, resolve)));
}

await Promise.all(listening);
console.log("ready");
