import { LlmResponseError, LlmUnavailableError } from './llm-errors';
import type { ChatResult, TokenUsage } from './llm-types';
import { errorMessageOf, isObject, toToolCall, toUsage } from './openai-wire-format';

/**
 * A streamed chat completion (`stream: true`) read as it arrives: Server-Sent Events
 * whose `data:` lines carry `chat.completion.chunk` objects, ended by `data: [DONE]`.
 * Text pieces (`delta.content`) go to `onDelta` as they arrive (the first at once, the
 * rest of one read together); tool calls arrive as fragments
 * keyed by `index` (the id and name in the first, the arguments' JSON text spread over
 * the rest) and are put together at the end; the usage comes in a last chunk with no
 * choices when `stream_options.include_usage` was asked for. Bytes may be cut anywhere,
 * an event or a UTF-8 character included.
 */
export class ChatStreamReader {
  private readonly decoder = new TextDecoder();
  private pending = '';
  private content = '';
  private sawContent = false;
  private readonly calls = new Map<number, { id?: string; name?: string; arguments: string }>();
  private finishReason: string | undefined;
  private usage: TokenUsage | undefined;
  private model: string | undefined;
  private done = false;
  /** Whether a piece of text has gone to `onDelta` (a failure after it must not be retried). */
  delivered = false;

  constructor(private readonly onDelta: (text: string) => void) {}

  /**
   * Text of this read not yet passed on: the pieces after the stream's first that arrive
   * in one read go to `onDelta` together, at the end of the read. None of them waits for
   * more bytes; a model that sends its answer at once (or a reader that falls behind)
   * then costs a few writes to the client per read instead of one per token, while the
   * first piece, which a listener is waiting for, goes at once.
   */
  private gathered = '';

  push(chunk: Uint8Array): void {
    this.pending += this.decoder.decode(chunk, { stream: true });
    try {
      // Events end with a blank line; `\r\n` and `\r` line ends are allowed too.
      for (;;) {
        const match = /\r\n\r\n|\n\n|\r\r/.exec(this.pending);
        if (!match) return;
        const event = this.pending.slice(0, match.index);
        this.pending = this.pending.slice(match.index + match[0].length);
        this.event(event);
      }
    } finally {
      // Also when a later event of the read fails: text the model sent before it still goes out.
      this.passOn();
    }
  }

  private passOn(): void {
    if (this.gathered === '') return;
    const text = this.gathered;
    this.gathered = '';
    this.onDelta(text);
  }

  /** The whole answer, once the body has ended. */
  finish(requestedModel: string): ChatResult {
    this.pending += this.decoder.decode();
    try {
      if (this.pending.trim() !== '') this.event(this.pending);
    } finally {
      this.passOn();
    }
    this.pending = '';
    if (!this.done && this.finishReason === undefined) throw new LlmUnavailableError('the LLM server ended the stream before the answer was complete', undefined, 1, undefined);
    const toolCalls = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => toToolCall({ id: call.id, function: { name: call.name, arguments: call.arguments } }, index));
    return {
      content: this.sawContent ? this.content : null,
      toolCalls,
      finishReason: this.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      usage: this.usage,
      model: this.model || requestedModel,
    };
  }

  private event(text: string): void {
    const data = dataOf(text);
    if (data === '') return; // a comment or a keep-alive
    if (data === '[DONE]') {
      this.done = true;
      return;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw new LlmResponseError('the LLM server streamed a chunk that is not JSON', data.slice(0, 500));
    }
    if (!isObject(chunk)) throw new LlmResponseError('the LLM server streamed something other than a chat completion chunk');
    if (chunk.error !== undefined) throw new LlmUnavailableError(`the LLM server failed mid-stream: ${errorMessageOf(chunk) ?? 'no reason given'}`, undefined, 1, undefined);
    if (typeof chunk.model === 'string' && chunk.model !== '') this.model = chunk.model;
    const usage = toUsage(chunk.usage);
    if (usage) this.usage = usage;
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!isObject(choice)) return;
    if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason;
    const delta = choice.delta;
    if (!isObject(delta)) return;
    if (typeof delta.content === 'string' && delta.content !== '') {
      this.content += delta.content;
      this.delivered = true;
      if (this.sawContent) this.gathered += delta.content;
      else this.onDelta(delta.content);
      this.sawContent = true;
    }
    if (Array.isArray(delta.tool_calls)) for (const fragment of delta.tool_calls) this.toolFragment(fragment);
  }

  private toolFragment(fragment: unknown): void {
    if (!isObject(fragment)) return;
    const index = typeof fragment.index === 'number' ? fragment.index : this.calls.size;
    const call = this.calls.get(index) ?? { arguments: '' };
    if (typeof fragment.id === 'string' && fragment.id !== '') call.id = fragment.id;
    const fn = isObject(fragment.function) ? fragment.function : undefined;
    if (fn && typeof fn.name === 'string' && fn.name !== '' && !call.name) call.name = fn.name;
    if (fn && typeof fn.arguments === 'string') call.arguments += fn.arguments;
    this.calls.set(index, call);
  }
}

/** An event's `data:` lines joined; an event of one `data:` line (every chunk a model sends) without splitting it. */
function dataOf(text: string): string {
  if (text.startsWith('data:') && !/[\r\n]/.test(text)) return text.charCodeAt(5) === 32 ? text.slice(6) : text.slice(5);
  return text
    .split(/\r\n|\n|\r/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).replace(/^ /, ''))
    .join('\n');
}
