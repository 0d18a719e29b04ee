/** The `llm` core service: one model provider slot, the OpenAI-compatible provider, usage records. */
export type {
  ChatMessage,
  SystemMessage,
  UserMessage,
  AssistantMessage,
  ToolMessage,
  ToolCall,
  ToolDefinition,
  ToolChoice,
  ResponseFormat,
  ChatRequest,
  ChatResult,
  FinishReason,
  TokenUsage,
  JsonChatRequest,
  JsonChatResult,
  LlmProvider,
  LlmService,
} from './llm-types';
export { LlmError, LlmNotConfiguredError, LlmRequestError, LlmUnavailableError, LlmResponseError } from './llm-errors';
export { llmConfigSchema, type LlmConfig } from './llm-config';
export { llmProviders } from './llm-extension';
export { createLlmService, type LlmServiceOptions, type KernelLlmService } from './llm-service';
export { createOpenAiCompatibleProvider, OPENAI_COMPATIBLE_PROVIDER_ID, type OpenAiCompatibleProviderOptions } from './openai-compatible-provider';
export { LlmUsage, type LlmCallStatus } from './llm-usage.entity';
