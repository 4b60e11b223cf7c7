/**
 * The four API families the hosts speak, as stand-in wire formats: how a
 * request reads as a conversation (`View`) and how a scripted `Turn` is
 * written back (server-sent events where the host streams).
 */
import {
  type Call,
  type EncodedAnswer,
  type Family,
  modelTurns,
  textOf,
  type Turn,
} from "./standin.ts";

const json = (value: unknown) => JSON.stringify(value);

// deno-lint-ignore no-explicit-any
type Json = any;

function errorAnswer(turn: Turn & { kind: "http" }, shape: unknown): EncodedAnswer {
  return turn.body !== undefined
    ? { kind: "raw", status: turn.status, contentType: "application/json", body: turn.body }
    : { kind: "json", status: turn.status, body: shape };
}

// ---------------------------------------------------------------- Anthropic Messages

export const anthropic: Family = {
  name: "anthropic-messages",
  route(method, url) {
    if (url.pathname === "/v1/messages" && method === "POST") return "model";
    if (url.pathname === "/v1/messages/count_tokens") return Response.json({ input_tokens: 1000 });
    if (url.pathname === "/api/hello" || url.pathname === "/") return new Response("ok");
    return null;
  },
  view(body) {
    // deno-lint-ignore no-explicit-any
    const messages: any[] = body.messages ?? [];
    const users = messages.filter((m) => m.role === "user");
    const toolResults: string[] = [];
    const calls: string[] = [];
    for (const m of messages) {
      if (!Array.isArray(m.content)) continue;
      for (const block of m.content) {
        if (block.type === "tool_result") toolResults.push(textOf(block.content));
        if (block.type === "tool_use") calls.push(block.name);
      }
    }
    return {
      model: String(body.model ?? ""),
      stream: body.stream === true,
      // Claude Code 2.1 also sends mid-conversation system turns (agent types, skills) as messages.
      system: [body.system, ...messages.filter((m) => m.role === "system").map((m) => m.content)]
        .map(textOf).filter(Boolean).join("\n"),
      firstUser: textOf(users[0]?.content),
      userText: users.map((m) => textOf(m.content)).join("\n"),
      // deno-lint-ignore no-explicit-any
      tools: (body.tools ?? []).map((t: any) => String(t.name)),
      turn: modelTurns(messages, (m) => m.role === "assistant"),
      toolResults,
      calls,
    };
  },
  encode(turn, view, ids) {
    if (turn.kind === "http") {
      return errorAnswer(turn, {
        type: "error",
        error: {
          type: turn.status === 401 ? "authentication_error" : "api_error",
          message: `stand-in HTTP ${turn.status}`,
        },
      });
    }
    const id = `msg_${ids()}`;
    const start = {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model: view.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 100,
          output_tokens: 1,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      },
    };
    if (turn.kind === "malformed") {
      return {
        kind: "sse",
        events: [
          { event: "message_start", data: json(start) },
          {
            event: "content_block_start",
            data: '{"type":"content_block_start","index":0,"content_bl',
          },
        ],
      };
    }
    if (turn.kind === "hang") {
      return { kind: "sse", events: [{ event: "message_start", data: json(start) }], hang: true };
    }
    const blocks: Array<{ type: "text"; text: string } | { type: "tool_use"; call: Call }> = [];
    if (turn.kind === "text") blocks.push({ type: "text", text: turn.text });
    else {
      if (turn.text) blocks.push({ type: "text", text: turn.text });
      for (const call of turn.calls) blocks.push({ type: "tool_use", call });
    }
    const stopReason = turn.kind === "tools" ? "tool_use" : "end_turn";
    if (!view.stream) {
      return {
        kind: "json",
        status: 200,
        body: {
          ...start.message,
          content: blocks.map((b) =>
            b.type === "text"
              ? { type: "text", text: b.text }
              : { type: "tool_use", id: `toolu_${ids()}`, name: b.call.name, input: b.call.input }
          ),
          stop_reason: stopReason,
          usage: { input_tokens: 100, output_tokens: 20 },
        },
      };
    }
    const events: Array<{ event?: string; data: string }> = [{
      event: "message_start",
      data: json(start),
    }];
    blocks.forEach((block, index) => {
      if (block.type === "text") {
        events.push(
          {
            event: "content_block_start",
            data: json({
              type: "content_block_start",
              index,
              content_block: { type: "text", text: "" },
            }),
          },
          {
            event: "content_block_delta",
            data: json({
              type: "content_block_delta",
              index,
              delta: { type: "text_delta", text: block.text },
            }),
          },
        );
      } else {
        events.push(
          {
            event: "content_block_start",
            data: json({
              type: "content_block_start",
              index,
              content_block: {
                type: "tool_use",
                id: `toolu_${ids()}`,
                name: block.call.name,
                input: {},
              },
            }),
          },
          {
            event: "content_block_delta",
            data: json({
              type: "content_block_delta",
              index,
              delta: { type: "input_json_delta", partial_json: json(block.call.input) },
            }),
          },
        );
      }
      events.push({
        event: "content_block_stop",
        data: json({ type: "content_block_stop", index }),
      });
    });
    events.push(
      {
        event: "message_delta",
        data: json({
          type: "message_delta",
          delta: { stop_reason: stopReason, stop_sequence: null },
          usage: { output_tokens: 20 },
        }),
      },
      { event: "message_stop", data: json({ type: "message_stop" }) },
    );
    return { kind: "sse", events };
  },
};

// ---------------------------------------------------------------- OpenAI Responses

// deno-lint-ignore no-explicit-any
function responsesToolNames(tools: any[]): string[] {
  const names: string[] = [];
  for (const tool of tools ?? []) {
    if (typeof tool.name === "string" && !Array.isArray(tool.tools)) names.push(tool.name);
    if (Array.isArray(tool.tools)) {
      for (const inner of tool.tools) names.push(`${tool.name}.${inner.name}`);
    }
    if (!tool.name && tool.type) names.push(String(tool.type));
  }
  return names;
}

const RESPONSES_MODEL_ITEMS = new Set([
  "function_call",
  "custom_tool_call",
  "local_shell_call",
  "reasoning",
]);

export const responses: Family = {
  name: "openai-responses",
  route(method, url) {
    if (url.pathname.endsWith("/responses") && method === "POST") return "model";
    if (url.pathname.endsWith("/models")) return Response.json({ object: "list", data: [] });
    return null;
  },
  view(body) {
    // deno-lint-ignore no-explicit-any
    const input: any[] = Array.isArray(body.input) ? body.input : [];
    const isModel = (item: { type?: string; role?: string }) =>
      (item.type === "message" || item.type === undefined) && item.role === "assistant" ||
      RESPONSES_MODEL_ITEMS.has(String(item.type));
    const users = input.filter((i) => i.role === "user");
    const developer = input.filter((i) => i.role === "developer" || i.role === "system");
    return {
      model: String(body.model ?? ""),
      stream: body.stream === true,
      system: [textOf(body.instructions), ...developer.map((d) => textOf(d.content))].join("\n"),
      firstUser: textOf(users[0]?.content),
      userText: users.map((u) => textOf(u.content)).join("\n"),
      tools: responsesToolNames(body.tools),
      turn: modelTurns(input, isModel),
      toolResults: input
        .filter((i) => i.type === "function_call_output" || i.type === "custom_tool_call_output")
        .map((i) => typeof i.output === "string" ? i.output : textOf(i.output)),
      calls: input.filter((i) => i.type === "function_call" || i.type === "custom_tool_call").map((
        i,
      ) => i.namespace ? `${i.namespace}.${i.name}` : String(i.name)),
    };
  },
  encode(turn, view, ids) {
    if (turn.kind === "http") {
      return errorAnswer(turn, {
        error: { message: `stand-in HTTP ${turn.status}`, type: "server_error", code: null },
      });
    }
    const id = `resp_${ids()}`;
    const created = {
      type: "response.created",
      response: { id, object: "response", status: "in_progress", model: view.model, output: [] },
    };
    if (turn.kind === "malformed") {
      return {
        kind: "sse",
        events: [{ event: "response.created", data: json(created) }, {
          event: "response.output_item.done",
          data: '{"type":"response.output_item.done","item":{"type":"mess',
        }],
      };
    }
    if (turn.kind === "hang") {
      return {
        kind: "sse",
        events: [{ event: "response.created", data: json(created) }],
        hang: true,
      };
    }
    // deno-lint-ignore no-explicit-any
    const items: any[] = [];
    const messageText = turn.kind === "text" ? turn.text : turn.text;
    if (messageText) {
      items.push({
        type: "message",
        id: `msg_${ids()}`,
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: messageText, annotations: [] }],
      });
    }
    if (turn.kind === "tools") {
      for (const call of turn.calls) {
        items.push({
          type: "function_call",
          id: `fc_${ids()}`,
          call_id: `call_${ids()}`,
          name: call.name,
          ...(call.namespace ? { namespace: call.namespace } : {}),
          arguments: json(call.input),
          status: "completed",
        });
      }
    }
    const events: Array<{ event?: string; data: string }> = [{
      event: "response.created",
      data: json(created),
    }];
    items.forEach((item, output_index) => {
      events.push({
        event: "response.output_item.added",
        data: json({
          type: "response.output_item.added",
          output_index,
          item: { ...item, status: "in_progress" },
        }),
      });
      if (item.type === "message") {
        events.push({
          event: "response.output_text.delta",
          data: json({
            type: "response.output_text.delta",
            item_id: item.id,
            output_index,
            content_index: 0,
            delta: item.content[0].text,
          }),
        });
      }
      events.push({
        event: "response.output_item.done",
        data: json({ type: "response.output_item.done", output_index, item }),
      });
    });
    events.push({
      event: "response.completed",
      data: json({
        type: "response.completed",
        response: {
          id,
          object: "response",
          status: "completed",
          model: view.model,
          output: items,
          usage: {
            input_tokens: 100,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 20,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 120,
          },
        },
      }),
    });
    return { kind: "sse", events };
  },
};

// ---------------------------------------------------------------- OpenAI chat completions

export const chat: Family = {
  name: "openai-chat",
  route(method, url) {
    if (url.pathname.endsWith("/chat/completions") && method === "POST") return "model";
    if (url.pathname.endsWith("/models")) {
      return Response.json({
        object: "list",
        data: [{ id: "stand-in", object: "model", owned_by: "peaks-tests" }],
      });
    }
    return null;
  },
  view(body) {
    // deno-lint-ignore no-explicit-any
    const messages: any[] = body.messages ?? [];
    const users = messages.filter((m) => m.role === "user");
    return {
      model: String(body.model ?? ""),
      stream: body.stream === true,
      system: messages.filter((m) => m.role === "system" || m.role === "developer").map((m) =>
        textOf(m.content)
      ).join("\n"),
      firstUser: textOf(users[0]?.content),
      userText: users.map((m) => textOf(m.content)).join("\n"),
      // deno-lint-ignore no-explicit-any
      tools: (body.tools ?? []).map((t: any) => String(t.function?.name ?? t.name)),
      turn: modelTurns(messages, (m) => m.role === "assistant"),
      toolResults: messages.filter((m) => m.role === "tool").map((m) => textOf(m.content)),
      calls: messages.flatMap((m) =>
        (m.tool_calls ?? []).map((c: { function?: { name?: string } }) => String(c.function?.name))
      ),
    };
  },
  encode(turn, view, ids) {
    if (turn.kind === "http") {
      return errorAnswer(turn, {
        error: {
          message: `stand-in HTTP ${turn.status}`,
          type: "server_error",
          code: String(turn.status),
        },
      });
    }
    const id = `chatcmpl-${ids()}`;
    const chunk = (delta: unknown, finish: string | null) =>
      json({
        id,
        object: "chat.completion.chunk",
        created: 1,
        model: view.model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
    if (turn.kind === "malformed") {
      return {
        kind: "sse",
        events: [{ data: chunk({ role: "assistant", content: "" }, null) }, {
          data: '{"id":"x","choices":[{"del',
        }],
      };
    }
    if (turn.kind === "hang") {
      return {
        kind: "sse",
        events: [{ data: chunk({ role: "assistant", content: "" }, null) }],
        hang: true,
      };
    }
    const content = turn.kind === "text" ? turn.text : turn.text ?? null;
    const toolCalls = turn.kind === "tools"
      ? turn.calls.map((call, index) => ({
        index,
        id: `call_${ids()}`,
        type: "function",
        function: { name: call.name, arguments: json(call.input) },
      }))
      : [];
    const finish = turn.kind === "tools" ? "tool_calls" : "stop";
    if (!view.stream) {
      return {
        kind: "json",
        status: 200,
        body: {
          id,
          object: "chat.completion",
          created: 1,
          model: view.model,
          choices: [{
            index: 0,
            message: {
              role: "assistant",
              content,
              ...(toolCalls.length
                ? { tool_calls: toolCalls.map(({ index: _i, ...c }) => c) }
                : {}),
            },
            finish_reason: finish,
          }],
          usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
        },
      };
    }
    const events = [{ data: chunk({ role: "assistant", content: content ?? "" }, null) }];
    if (toolCalls.length) events.push({ data: chunk({ tool_calls: toolCalls }, null) });
    events.push({ data: chunk({}, finish) });
    events.push({
      data: json({
        id,
        object: "chat.completion.chunk",
        created: 1,
        model: view.model,
        choices: [],
        usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
      }),
    });
    events.push({ data: "[DONE]" });
    return { kind: "sse", events };
  },
};

// ---------------------------------------------------------------- Gemini

export const gemini: Family = {
  name: "gemini",
  route(method, url) {
    if (method === "POST" && /:(stream)?[gG]enerateContent$/.test(url.pathname)) return "model";
    if (method === "POST" && url.pathname.endsWith(":countTokens")) {
      return Response.json({ totalTokens: 1000 });
    }
    if (url.pathname.includes("/models")) return Response.json({ models: [] });
    return null;
  },
  view(body, url) {
    // deno-lint-ignore no-explicit-any
    const contents: any[] = body.contents ?? [];
    // deno-lint-ignore no-explicit-any
    const partsText = (parts: any[]) =>
      (parts ?? []).map((p) => typeof p.text === "string" ? p.text : "").filter(Boolean).join("\n");
    const users = contents.filter((c) => c.role === "user" || c.role === undefined);
    const toolResults: string[] = [];
    const calls: string[] = [];
    for (const c of contents) {
      for (const part of c.parts ?? []) {
        if (part.functionResponse) toolResults.push(json(part.functionResponse.response ?? {}));
        if (part.functionCall) calls.push(String(part.functionCall.name));
      }
    }
    const model = decodeURIComponent(url.pathname.replace(/^.*\/models\//, "").replace(/:.*$/, ""));
    return {
      model,
      stream: url.pathname.includes(":streamGenerateContent"),
      system: partsText(body.systemInstruction?.parts ?? body.system_instruction?.parts ?? []),
      firstUser: partsText(users[0]?.parts ?? []),
      userText: users.map((u) => partsText(u.parts)).join("\n"),
      tools: (body.tools ?? []).flatMap((t: Json) =>
        (t.functionDeclarations ?? t.function_declarations ?? []).map((f: Json) => String(f.name))
      ),
      turn: modelTurns(contents, (c) => c.role === "model"),
      toolResults,
      calls,
      jsonSchema: body.generationConfig?.responseMimeType === "application/json"
        ? body.generationConfig.responseJsonSchema ?? body.generationConfig.responseSchema ?? {}
        : undefined,
    };
  },
  encode(turn, view) {
    if (turn.kind === "http") {
      return errorAnswer(turn, {
        error: {
          code: turn.status,
          message: `stand-in HTTP ${turn.status}`,
          status: turn.status === 401 ? "UNAUTHENTICATED" : "INTERNAL",
        },
      });
    }
    if (turn.kind === "malformed") {
      return {
        kind: "sse",
        events: [{ data: '{"candidates":[{"content":{"role":"model","parts":[{"te' }],
      };
    }
    if (turn.kind === "hang") {
      return {
        kind: "sse",
        events: [{
          data: json({
            candidates: [{ content: { role: "model", parts: [{ text: "" }] }, index: 0 }],
          }),
        }],
        hang: true,
      };
    }
    // deno-lint-ignore no-explicit-any
    const parts: any[] = [];
    if (turn.kind === "text") parts.push({ text: turn.text });
    else {
      if (turn.text) parts.push({ text: turn.text });
      for (const call of turn.calls) {
        parts.push({ functionCall: { name: call.name, args: call.input } });
      }
    }
    const answer = {
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 },
      modelVersion: view.model,
    };
    if (!view.stream) return { kind: "json", status: 200, body: answer };
    return { kind: "sse", events: [{ data: json(answer) }] };
  },
};
