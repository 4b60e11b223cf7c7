/**
 * A loopback stand-in for a model API. One server speaks one API family
 * (Anthropic Messages, OpenAI Responses, OpenAI chat completions, Gemini);
 * a scenario scripts it as a function from what the host sent to what the
 * "model" answers (text, tool calls, an HTTP error, a malformed or hung
 * stream). Every request is recorded, with the parsed conversation, so a
 * test can assert on what the real host sent.
 */

/** One tool call the scripted model makes. */
export interface Call {
  name: string;
  input: Record<string, unknown>;
  /** Responses API namespaced tools (codex's `multi_agent_v1`). */
  namespace?: string;
}

export type Turn =
  | { kind: "text"; text: string }
  | { kind: "tools"; calls: Call[]; text?: string }
  | { kind: "http"; status: number; body?: string }
  | { kind: "malformed" }
  | { kind: "hang" };

export const text = (text: string): Turn => ({ kind: "text", text });
export const tools = (...calls: Call[]): Turn => ({ kind: "tools", calls });
export const http = (status: number, body?: string): Turn => ({ kind: "http", status, body });
export const malformed = (): Turn => ({ kind: "malformed" });
export const hang = (): Turn => ({ kind: "hang" });

/** A conversation as the host sent it, the same shape for every family. */
export interface View {
  model: string;
  stream: boolean;
  /** System / developer instructions, joined. */
  system: string;
  /** The first user message's text. */
  firstUser: string;
  /** All user-side text (user messages, tool results), joined. */
  userText: string;
  /** Tool names offered to the model (namespaced ones as `ns.name`). */
  tools: string[];
  /** How many model answers the conversation already holds: the index of this turn. */
  turn: number;
  /** Text of each tool result sent back, oldest first. */
  toolResults: string[];
  /** Names of the tool calls the model made so far, oldest first. */
  calls: string[];
  /** The JSON schema a side call asks its answer to follow (Gemini's routing classifier). */
  jsonSchema?: unknown;
}

export interface Exchange {
  index: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  // deno-lint-ignore no-explicit-any
  body: any;
  /** Parsed conversation when this is a model call. */
  view: View | null;
  turn: Turn | null;
}

export type Script = (view: View, exchange: Exchange) => Turn | Promise<Turn>;

/** The wire format of one API family. */
export interface Family {
  name: string;
  /** A model call, or an answer to anything else (null: 404). */
  route(method: string, url: URL): "model" | Response | null;
  // deno-lint-ignore no-explicit-any
  view(body: any, url: URL): View;
  encode(turn: Turn, view: View, ids: () => string): EncodedAnswer;
}

/** SSE events or one JSON body; `null` data ends the stream abruptly (malformed). */
export type EncodedAnswer =
  | { kind: "sse"; events: Array<{ event?: string; data: string }>; hang?: boolean }
  | { kind: "json"; status: number; body: unknown }
  | { kind: "raw"; status: number; contentType: string; body: string };

export interface StandIn extends AsyncDisposable {
  family: string;
  port: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  exchanges: Exchange[];
  /** Model calls only. */
  calls(): Exchange[];
  close(): Promise<void>;
}

export function startStandIn(family: Family, script: Script): Promise<StandIn> {
  const exchanges: Exchange[] = [];
  const scriptErrors: unknown[] = [];
  const streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const abort = new AbortController();
  let counter = 0;
  const ids = () =>
    `${(++counter).toString(36).padStart(6, "0")}${crypto.randomUUID().slice(0, 8)}`;
  const encoder = new TextEncoder();

  const handler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const raw = request.method === "GET" || request.method === "HEAD" ? "" : await request.text();
    // deno-lint-ignore no-explicit-any
    let body: any = raw;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      // not JSON: keep the text
    }
    const exchange: Exchange = {
      index: exchanges.length,
      method: request.method,
      path: url.pathname + url.search,
      headers: Object.fromEntries(request.headers),
      body,
      view: null,
      turn: null,
    };
    exchanges.push(exchange);
    const route = family.route(request.method, url);
    if (route === null) return new Response("not found", { status: 404 });
    if (route !== "model") return route;
    let view: View;
    try {
      view = family.view(body, url);
    } catch (error) {
      return new Response(`stand-in could not read the request: ${error}`, { status: 400 });
    }
    exchange.view = view;
    let turn: Turn;
    try {
      turn = await script(view, exchange);
    } catch (error) {
      // A failed assertion in the script: answer 400 so the host stops, and keep the error.
      exchange.turn = { kind: "http", status: 400, body: String(error) };
      scriptErrors.push(error);
      return new Response(`stand-in script failed: ${error}`, { status: 400 });
    }
    exchange.turn = turn;
    const answer = family.encode(turn, view, ids);
    if (answer.kind === "json") return Response.json(answer.body, { status: answer.status });
    if (answer.kind === "raw") {
      return new Response(answer.body, {
        status: answer.status,
        headers: { "content-type": answer.contentType },
      });
    }
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const event of answer.events) {
          const head = event.event ? `event: ${event.event}\n` : "";
          controller.enqueue(encoder.encode(`${head}data: ${event.data}\n\n`));
        }
        if (answer.hang) streams.add(controller);
        else controller.close();
      },
      cancel() {
        // the host went away
      },
    });
    return new Response(stream, {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
    });
  };

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: abort.signal,
    onListen: () => {},
  }, handler);
  const port = server.addr.port;
  const close = async () => {
    for (const controller of streams) {
      try {
        controller.close();
      } catch {
        // already closed
      }
    }
    streams.clear();
    abort.abort();
    await server.finished.catch(() => {});
  };
  return Promise.resolve({
    family: family.name,
    port,
    origin: `http://127.0.0.1:${port}`,
    exchanges,
    calls: () => exchanges.filter((e) => e.view !== null),
    close: async () => {
      await close();
      if (scriptErrors.length) throw scriptErrors[0];
    },
    [Symbol.asyncDispose]: close,
  });
}

/** Joins the text parts of a content value of any family. */
// deno-lint-ignore no-explicit-any
export function textOf(content: any): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map(textOf).filter(Boolean).join("\n");
  if (typeof content === "object") {
    if (typeof content.text === "string") return content.text;
    if (content.content !== undefined) return textOf(content.content);
    if (typeof content.output === "string") return content.output;
  }
  return "";
}

/** Counts groups of consecutive model-side entries: the number of answers already given. */
export function modelTurns<T>(entries: T[], isModel: (entry: T) => boolean): number {
  let turns = 0;
  let previous = false;
  for (const entry of entries) {
    const model = isModel(entry);
    if (model && !previous) turns++;
    previous = model;
  }
  return turns;
}

/** A value that satisfies a (Gemini-style, upper- or lower-case typed) JSON schema. */
// deno-lint-ignore no-explicit-any
export function sample(schema: any): unknown {
  const type = String(schema?.type ?? "object").toLowerCase();
  if (type === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(schema?.properties ?? {})) out[key] = sample(inner);
    return out;
  }
  if (type === "array") return [];
  if (type === "integer" || type === "number") return 10;
  if (type === "boolean") return false;
  return Array.isArray(schema?.enum) && schema.enum.length ? schema.enum[0] : "ok";
}

/** The answer to a side call (a title, a routing classifier): a short text or the JSON it asks for. */
export function sideAnswer(view: View): Turn {
  return view.jsonSchema ? text(JSON.stringify(sample(view.jsonSchema))) : text("ok");
}

/** Script helper: `turns[view.turn]` for agent calls, a side answer for calls without tools. */
export function sequence(turns: Turn[], fallback = text("Finished.")): Script {
  return (view) => {
    if (view.tools.length === 0) return sideAnswer(view);
    return turns[view.turn] ?? fallback;
  };
}
