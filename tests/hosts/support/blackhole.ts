/**
 * A loopback HTTP proxy that refuses everything: hosts get it as
 * HTTP(S)_PROXY, so a call to anything but the stand-in (telemetry, update
 * checks, model catalogues) fails at once on this machine instead of
 * waiting on the network, and the test can see what was tried.
 */
export interface BlackHole {
  url: string;
  /** First request lines seen (`CONNECT host:443 HTTP/1.1`, `GET http://… HTTP/1.1`). */
  attempts: string[];
  close(): Promise<void>;
}

export function startBlackHole(): Promise<BlackHole> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const attempts: string[] = [];
  const conns = new Set<Deno.Conn>();
  const serve = (async () => {
    for await (const conn of listener) {
      conns.add(conn);
      (async () => {
        try {
          const buffer = new Uint8Array(4096);
          const n = await conn.read(buffer);
          if (n) attempts.push(new TextDecoder().decode(buffer.subarray(0, n)).split("\r\n")[0]);
          await conn.write(
            new TextEncoder().encode(
              "HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            ),
          );
        } catch {
          // the client went away
        } finally {
          conns.delete(conn);
          try {
            conn.close();
          } catch {
            // closed
          }
        }
      })();
    }
  })().catch(() => {});
  const addr = listener.addr as Deno.NetAddr;
  return Promise.resolve({
    url: `http://127.0.0.1:${addr.port}`,
    attempts,
    async close() {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // closed
        }
      }
      await serve;
    },
  });
}
