import type { Static, TSchema } from '@sinclair/typebox';

/**
 * The provider-neutral shape of a chat with a language model. Plugins write these;
 * a provider translates them to its wire format (the built-in one to the OpenAI chat
 * completions API), so swapping the provider changes no plugin code.
 */

/** A tool call the model asked for, with its arguments already parsed. */
export interface ToolCall {
  /** The provider's id of the call; a `tool` message answers it by this id. */
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface SystemMessage {
  role: 'system';
  content: string;
}

export interface UserMessage {
  role: 'user';
  content: string;
}

/** An earlier answer of the model, sent back as history; `toolCalls` as the model returned them. */
export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  toolCalls?: ToolCall[];
}

/** The result of running a tool the model called. */
export interface ToolMessage {
  role: 'tool';
  toolCallId: string;
  content: string;
}

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** A function the model may call. */
export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/** `auto` (the model decides), `none`, `required` (some tool), or one tool by name. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/**
 * `json_schema` asks the server to constrain the answer to a schema (structured
 * output); `json_object` only to answer valid JSON; `text` is the default.
 */
export type ResponseFormat =
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean }
  | { type: 'json_object' }
  | { type: 'text' };

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  responseFormat?: ResponseFormat;
  /** Default LLM_MODEL. */
  model?: string;
  temperature?: number;
  maxTokens?: number;
  /**
   * Another server than LLM_BASE_URL, e.g. an agent's `custom_llm_url`. The
   * operator's LLM_API_KEY is not sent to a different origin (a tenant could point
   * this at a server of its own and read the key); give that server's key in `apiKey`.
   */
  baseUrl?: string;
  /** The key of `baseUrl`'s server; without `baseUrl`, replaces LLM_API_KEY for this call. */
  apiKey?: string;
  /** What the call is for, e.g. `evaluation.analyzer`: recorded with its usage. */
  purpose?: string;
  /** The agent the call is for: recorded with its usage, so usage can be read per agent. */
  agentUuid?: string;
  /**
   * Streams the answer: called with each piece of the answer's text as the server sends
   * it (`stream: true` on the OpenAI wire). The call still resolves to the whole result,
   * tool calls assembled. A failure after the first piece is not retried (the caller has
   * shown it), one before it is, as without streaming.
   */
  onDelta?: (text: string) => void;
  /** With tools: whether the model may call several in one answer (`parallel_tool_calls`); the server's default when unset. */
  parallelToolCalls?: boolean;
  /** Cancels the call; the caller's own reason is thrown. */
  signal?: AbortSignal;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** Why the model stopped: the OpenAI values, or whatever else a server reports. */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | (string & {});

export interface ChatResult {
  /** The answer's text; null when the model only called tools. */
  content: string | null;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  /** Undefined when the server did not report it (some local servers do not). */
  usage?: TokenUsage;
  /** The model that answered, as the server names it. */
  model: string;
  /** The server's whole answer, for fields this shape does not carry. */
  raw?: unknown;
}

/** What fills the `core.llm-provider` slot: one way of reaching a model. */
export interface LlmProvider {
  /** Recorded with each call's usage, e.g. `openai-compatible`. */
  readonly id: string;
  /** Throws the errors of llm-errors.ts (other errors are recorded and passed on as they are). */
  chat(request: ChatRequest): Promise<ChatResult>;
}

/** A request for an answer that is a JSON value conforming to `schema`. */
export interface JsonChatRequest<S extends object = Record<string, unknown>> extends Omit<ChatRequest, 'responseFormat'> {
  /** JSON Schema of the answer (a TypeBox schema types the result). */
  schema: S;
  /** Name of the schema sent to the server (letters, digits, `_`, `-`); default `response`. */
  schemaName?: string;
  /**
   * OpenAI's strict mode: exact adherence, but only for schemas of its subset (every
   * property required, `additionalProperties: false`). The answer is validated here
   * either way.
   */
  strict?: boolean;
}

/** What plugins use: the active provider, with each call's usage recorded. */
export interface LlmService {
  chat(request: ChatRequest): Promise<ChatResult>;
  /**
   * Asks for structured output and returns the parsed answer, validated against
   * `schema`; an answer that is not JSON or does not conform throws `LlmResponseError`.
   * A TypeBox schema types the result; with a plain JSON Schema, name the type.
   */
  json<S extends TSchema>(request: JsonChatRequest<S>): Promise<Static<S>>;
  json<T = unknown>(request: JsonChatRequest): Promise<T>;
  /**
   * As `json`, with the call's result beside the value: its token usage, the model
   * that answered and the raw text (an evaluation records all three).
   */
  jsonResult<S extends TSchema>(request: JsonChatRequest<S>): Promise<JsonChatResult<Static<S>>>;
  jsonResult<T = unknown>(request: JsonChatRequest): Promise<JsonChatResult<T>>;
}

export interface JsonChatResult<T> {
  value: T;
  result: ChatResult;
}
