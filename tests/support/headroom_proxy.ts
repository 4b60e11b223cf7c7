/**
 * A real local HTTP server that speaks the headroom proxy's `/v1/compress`
 * contract (request: messages, model, optional token_budget; response:
 * messages, tokens_before, tokens_after, tokens_saved, compression_ratio,
 * transforms_applied, ccr_hashes). It records every request and answers
 * with whatever the test scripted.
 */

export interface ProxyRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** `closing` aborts when the test disposes the server, so no handler outlives it. */
export type Script = (request: ProxyRequest, closing: AbortSignal) => Response | Promise<Response>;

export interface FakeProxy extends AsyncDisposable {
  url: string;
  requests: ProxyRequest[];
  script: Script;
  /** The prompt text of the n-th request's first message. */
  promptOf(n: number): string;
}

function tokens(text: string): number {
  return Math.ceil(new TextEncoder().encode(text).length / 4);
}

function firstContent(request: ProxyRequest): string {
  const content = request.body?.messages?.[0]?.content;
  return typeof content === "string" ? content : "";
}

/** Scripted answers, one per failure path plus the good one. */
export const answer = {
  /** Compresses the prompt to its first `bytes` characters (ASCII prompts in tests). */
  compressTo(bytes: number | ((original: string) => number)): Script {
    return (request) => {
      const original = firstContent(request);
      const keep = typeof bytes === "function" ? bytes(original) : bytes;
      const shorter = original.slice(0, keep);
      const before = tokens(original);
      const after = tokens(shorter);
      return Response.json({
        messages: [{ role: "user", content: shorter }],
        tokens_before: before,
        tokens_after: after,
        tokens_saved: before - after,
        compression_ratio: before ? after / before : 1,
        transforms_applied: ["router:text:truncate"],
        ccr_hashes: ["ccr0a1b2c3"],
      });
    };
  },
  /** What the proxy sends when it leaves the prompt alone (its bypass answer). */
  unchanged(): Script {
    return (request) =>
      Response.json({
        messages: request.body?.messages ?? [],
        tokens_before: 0,
        tokens_after: 0,
        tokens_saved: 0,
        compression_ratio: 1.0,
        transforms_applied: [],
        ccr_hashes: [],
      });
  },
  status(code: number, body?: unknown): Script {
    return () =>
      body === undefined ? new Response(null, { status: code }) : Response.json(body, {
        status: code,
      });
  },
  malformed(): Script {
    return () =>
      new Response('{"messages": [', { headers: { "content-type": "application/json" } });
  },
  /** Valid JSON whose message content is not a string. */
  nonStringContent(): Script {
    return (request) =>
      Response.json({
        messages: [{ role: "user", content: [{ type: "text", text: firstContent(request) }] }],
        tokens_before: 10,
        tokens_after: 5,
        tokens_saved: 5,
        compression_ratio: 0.5,
        transforms_applied: [],
        ccr_hashes: [],
      });
  },
  /** Never answers; the handler ends when the server shuts down. */
  hang(): Script {
    return (_request, signal) =>
      new Promise<Response>((resolve) => {
        const done = () => resolve(new Response(null, { status: 504 }));
        if (signal.aborted) done();
        else signal.addEventListener("abort", done, { once: true });
      });
  },
};

export function fakeHeadroomProxy(script: Script = answer.unchanged()): FakeProxy {
  const requests: ProxyRequest[] = [];
  const closing = new AbortController();
  const proxy = {
    url: "",
    requests,
    script,
    promptOf: (n: number) => firstContent(requests[n]),
  } as FakeProxy;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const text = await request.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      const recorded: ProxyRequest = {
        method: request.method,
        path: new URL(request.url).pathname,
        headers: Object.fromEntries(request.headers),
        body,
      };
      requests.push(recorded);
      if (recorded.path !== "/v1/compress" || request.method !== "POST") {
        return new Response(null, { status: 404 });
      }
      return await proxy.script(recorded, closing.signal);
    },
  );
  proxy.url = `http://127.0.0.1:${server.addr.port}`;
  proxy[Symbol.asyncDispose] = () => {
    closing.abort();
    return server.shutdown();
  };
  return proxy;
}

/** A loopback port nothing listens on (bound, then released). */
export function deadPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
