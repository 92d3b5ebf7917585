/**
 * The command's own network (user-net.ts), in its pure parts: where it must not lead, and the
 * command lines that make it. The real thing runs in bwrap.test.ts and
 * test/local/hostile-network.git.test.ts.
 */
import { describe, expect, it } from "vitest";
import { blockedDestinations, networkOf, NOT_THE_INTERNET, outerLayer, slirpArgs } from "./user-net.ts";

describe("networkOf", () => {
  it.each([
    ["192.168.77.1/24", "192.168.77.0/24"],
    ["10.1.2.3/16", "10.1.0.0/16"],
    ["203.0.113.9/32", "203.0.113.9/32"],
    ["172.20.5.4/12", "172.16.0.0/12"],
    ["1.2.3.4/0", "0.0.0.0/0"],
  ])("%s → %s", (cidr, network) => {
    expect(networkOf(cidr)).toBe(network);
  });
});

describe("blockedDestinations", () => {
  it("blocks what is never the internet, and the host's own addresses and networks whatever their range", () => {
    const blocked = blockedDestinations({
      lo: [{ address: "127.0.0.1", netmask: "255.0.0.0", family: "IPv4", mac: "00:00:00:00:00:00", internal: true, cidr: "127.0.0.1/8" }],
      eth0: [
        { address: "198.51.100.7", netmask: "255.255.255.0", family: "IPv4", mac: "02:00:00:00:00:01", internal: false, cidr: "198.51.100.7/24" },
        { address: "fd00::2", netmask: "ffff:ffff:ffff:ffff::", family: "IPv6", mac: "02:00:00:00:00:01", internal: false, cidr: "fd00::2/64", scopeid: 0 },
      ],
    });
    expect(blocked).toEqual([...NOT_THE_INTERNET, "198.51.100.7/32", "198.51.100.0/24"]);
    expect(blocked).toContain("169.254.0.0/16");
    // slirp4netns's own link (10.0.2.0/24) is more specific than 10.0.0.0/8, so it stays the way out.
    expect(blocked).not.toContain("10.0.2.0/24");
  });
});

describe("outerLayer", () => {
  it("makes a user and a network namespace, blocks the routes with ip, says its pid, and runs the inner bwrap", () => {
    const args = outerLayer({
      bwrap: "/usr/bin/bwrap",
      ip: "/usr/sbin/ip",
      blocked: ["10.0.0.0/8", "192.0.2.2/32"],
      pidFd: 3,
      inner: ["--unshare-pid", "--", "sh", "-c", "true"],
    });
    expect(args.slice(0, args.indexOf("--"))).toEqual([
      "--unshare-user",
      "--unshare-net",
      "--uid",
      "0",
      "--gid",
      "0",
      "--cap-add",
      "ALL",
      "--die-with-parent",
      "--bind",
      "/",
      "/",
      "--dev-bind",
      "/dev",
      "/dev",
    ]);
    const script = args[args.indexOf("--") + 3] ?? "";
    expect(script.split("\n").slice(-2)).toEqual(["echo $$ >&3; exec 3>&-", 'exec "$@"']);
    expect(args.slice(args.indexOf("--") + 4)).toEqual([
      "naruto-network",
      "/usr/sbin/ip",
      "",
      "",
      "",
      "10.0.0.0/8",
      "192.0.2.2/32",
      "--",
      "--",
      "/usr/bin/bwrap",
      "--unshare-pid",
      "--",
      "sh",
      "-c",
      "true",
    ]);
    expect(outerLayer({ bwrap: "bwrap", ip: null, blocked: ["10.0.0.0/8"], pidFd: 3, inner: [] }).slice(-7)).toEqual(
      ["naruto-network", "", "", "", "", "--", "--", "bwrap"].slice(-7),
    );
  });

  it("starts the relay of the endpoints carried in before it says its pid, and adds a LAN endpoint's address to the loopback", () => {
    const spec = {
      node: "/usr/bin/node",
      listeners: [
        { listen: "127.0.0.1", port: 4000, socket: "/tmp/naruto-reach-x/0.sock", alias: false },
        { listen: "192.168.1.5", port: 443, socket: "/tmp/naruto-reach-x/1.sock", alias: true },
      ],
    };
    const args = outerLayer({ bwrap: "bwrap", ip: "/usr/sbin/ip", blocked: ["192.168.0.0/16"], pidFd: 3, inner: [], relay: { spec, exitFd: 7 } });
    const script = args[args.indexOf("--") + 3] ?? "";
    const lines = script.split("\n");
    // The relay listens before the pid is said (and so before slirp4netns and the command start).
    expect(lines.findIndex((l) => l.includes("ready=$("))).toBeLessThan(lines.findIndex((l) => l.startsWith("echo $$")));
    expect(script).toContain("0<&7 7<&- 3>&-");
    const rest = args.slice(args.indexOf("--") + 4);
    expect(rest[2]).toBe("/usr/bin/node");
    expect(JSON.parse(rest[4] ?? "")).toEqual([
      ["127.0.0.1", 4000, "/tmp/naruto-reach-x/0.sock"],
      ["192.168.1.5", 443, "/tmp/naruto-reach-x/1.sock"],
    ]);
    expect(rest.slice(5)).toEqual(["192.168.0.0/16", "--", "192.168.1.5/32", "--", "bwrap"]);
  });

  it("as root makes only the network namespace: the inner bwrap stays root's and drops to the sandbox user itself", () => {
    const args = outerLayer({ bwrap: "/usr/bin/bwrap", ip: "/usr/sbin/ip", blocked: ["10.0.0.0/8"], pidFd: 3, inner: ["--", "true"], root: true });
    expect(args.slice(0, args.indexOf("--"))).toEqual([
      "--unshare-net",
      "--cap-add",
      "ALL",
      "--die-with-parent",
      "--bind",
      "/",
      "/",
      "--dev-bind",
      "/dev",
      "/dev",
    ]);
  });
});

describe("slirpArgs", () => {
  it("configures the link, keeps the host's loopback out, runs sandboxed and answers on its descriptors", () => {
    expect(slirpArgs(4242)).toEqual([
      "--configure",
      "--mtu=65520",
      "--disable-host-loopback",
      "--enable-sandbox",
      "--enable-seccomp",
      "--ready-fd=3",
      "--exit-fd=4",
      "4242",
      "tap0",
    ]);
  });
});
