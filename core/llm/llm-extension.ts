import { createExtensionPoint } from '../plugin/extension-point';
import type { LlmProvider } from './llm-types';

/**
 * The model provider slot. A plugin may fill it with a provider of its own (a
 * vendor's SDK, a router across servers); when none does, the built-in
 * OpenAI-compatible provider is used. One provider at a time: a second
 * contribution is a boot error, so which model answers is never a matter of load order.
 */
export const llmProviders = createExtensionPoint<LlmProvider>({ id: 'core.llm-provider', single: true });
