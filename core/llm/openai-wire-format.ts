import { LlmResponseError } from './llm-errors';
import type { ChatMessage, ChatRequest, ChatResult, ToolCall, TokenUsage } from './llm-types';

/**
 * The OpenAI chat completions wire format, to and from the provider-neutral types.
 * vLLM, Ollama, llama.cpp's server, LM Studio and the hosted APIs speak it; fields
 * a server does not know it ignores, so only what the request uses is sent.
 */

/** The body of `POST {base}/chat/completions`. */
export function toWireRequest(request: ChatRequest, model: string): Record<string, unknown> {
  const body: Record<string, unknown> = { model, messages: request.messages.map(toWireMessage) };
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, ...(tool.description !== undefined ? { description: tool.description } : {}), parameters: tool.parameters },
    }));
  }
  if (request.parallelToolCalls !== undefined && request.tools && request.tools.length > 0) body.parallel_tool_calls = request.parallelToolCalls;
  if (request.onDelta) {
    body.stream = true;
    // The usage comes as a last chunk; servers that do not know the option ignore it.
    body.stream_options = { include_usage: true };
  }
  if (request.toolChoice !== undefined) {
    body.tool_choice = typeof request.toolChoice === 'string' ? request.toolChoice : { type: 'function', function: { name: request.toolChoice.name } };
  }
  const format = request.responseFormat;
  if (format?.type === 'json_schema') {
    body.response_format = {
      type: 'json_schema',
      json_schema: { name: format.name, schema: format.schema, ...(format.strict !== undefined ? { strict: format.strict } : {}) },
    };
  } else if (format) {
    body.response_format = { type: format.type };
  }
  if (request.temperature !== undefined) body.temperature = request.temperature;
  // `max_tokens` rather than OpenAI's newer `max_completion_tokens`: every compatible server knows it.
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  return body;
}

function toWireMessage(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        // Some servers refuse an empty list, so none is sent without calls.
        ...(message.toolCalls && message.toolCalls.length > 0
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function',
                function: { name: call.name, arguments: JSON.stringify(call.arguments) },
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    default:
      return { role: message.role, content: message.content };
  }
}

/** A chat completion as the provider-neutral result; an answer of another shape throws `LlmResponseError`. */
export function fromWireResponse(body: unknown, requestedModel: string): ChatResult {
  const choice = isObject(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
  const message = isObject(choice) ? choice.message : undefined;
  if (!isObject(body) || !isObject(choice) || !isObject(message)) throw new LlmResponseError('the LLM server answered something other than a chat completion');
  const toolCalls = Array.isArray(message.tool_calls) ? message.tool_calls.map(toToolCall) : [];
  return {
    content: typeof message.content === 'string' ? message.content : null,
    toolCalls,
    finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : toolCalls.length > 0 ? 'tool_calls' : 'stop',
    usage: toUsage(body.usage),
    model: typeof body.model === 'string' && body.model !== '' ? body.model : requestedModel,
    raw: body,
  };
}

export function toToolCall(call: unknown, index: number): ToolCall {
  const fn = isObject(call) && isObject(call.function) ? call.function : undefined;
  if (!isObject(call) || !fn || typeof fn.name !== 'string') throw new LlmResponseError('the LLM server answered a tool call without a function name');
  // A few servers leave out the id; the position keeps the tool's answer attributable.
  const id = typeof call.id === 'string' && call.id !== '' ? call.id : `call_${index}`;
  return { id, name: fn.name, arguments: toArguments(fn.name, fn.arguments) };
}

/** The API sends arguments as a JSON string; some servers send the object itself, or nothing for a tool without parameters. */
function toArguments(tool: string, value: unknown): Record<string, unknown> {
  if (value === undefined || value === null || value === '') return {};
  if (isObject(value)) return value;
  const text = String(value);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new LlmResponseError(`the model called tool "${tool}" with arguments that are not valid JSON`, text);
  }
  if (!isObject(parsed)) throw new LlmResponseError(`the model called tool "${tool}" with arguments that are not a JSON object`, text);
  return parsed;
}

export function toUsage(usage: unknown): TokenUsage | undefined {
  if (!isObject(usage)) return undefined;
  const prompt = count(usage.prompt_tokens);
  const completion = count(usage.completion_tokens);
  if (prompt === undefined && completion === undefined) return undefined;
  return {
    promptTokens: prompt ?? 0,
    completionTokens: completion ?? 0,
    totalTokens: count(usage.total_tokens) ?? (prompt ?? 0) + (completion ?? 0),
  };
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/**
 * The reason an error answer gives: OpenAI's `{error: {message}}`, vLLM's
 * `{message}`, or `{error: "..."}` (llama.cpp, Ollama). Cut short, since a server may
 * quote the request back.
 */
export function errorMessageOf(body: unknown): string | undefined {
  const raw = isObject(body)
    ? isObject(body.error)
      ? body.error.message
      : (body.error ?? body.message ?? body.detail)
    : undefined;
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  return raw.length > 300 ? `${raw.slice(0, 300)}...` : raw;
}

export function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
