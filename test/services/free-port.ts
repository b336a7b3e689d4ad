import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/**
 * A TCP port on 127.0.0.1 that nothing listened on a moment ago (callers retry if one races them).
 *
 * Picked below the system's ephemeral range: a port the kernel hands out (`listen(0)`) comes from
 * the range every outgoing connection takes its local port from, so with hundreds of connections
 * a second in a test run, a port found free could be an outgoing connection's by the time a child
 * process listens on it (EADDRINUSE). Below the range only another test's listener can take it.
 */
export async function freePort(): Promise<number> {
  const below = ephemeralRangeStart();
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (below - LOWEST));
    if (await listenable(port)) return port;
  }
  return listenable(0);
}

/** Ports from here up to the ephemeral range are drawn from (above the well-known and most service ports). */
const LOWEST = 20_000;

/** Where the kernel's ephemeral ports begin (Linux); 32768 where that cannot be read. */
function ephemeralRangeStart(): number {
  try {
    const start = Number(
      readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0],
    );
    return Number.isInteger(start) && start > LOWEST + 1_000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

/** Listens on `port` (0: any) and closes again: the port listened on, or 0 when `port` was taken. */
function listenable(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (port !== 0 && (error.code === "EADDRINUSE" || error.code === "EACCES")) resolve(0);
      else reject(error);
    });
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address !== null
          ? resolve(address.port)
          : reject(new Error("no port assigned")),
      );
    });
  });
}
