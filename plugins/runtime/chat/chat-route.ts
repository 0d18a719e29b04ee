import { defineRoute, DataEnvelope, EventStream, wantsEventStream, type HttpService } from '../../../core';
import { ChatParams, ChatRequest, ChatTurn } from './chat-schemas';
import type { Turn } from './turn';

/** `POST /api/v1/agents/{uuid}/chat`: one turn, answered as JSON or streamed as Server-Sent Events. */
export function registerChatRoute(http: HttpService, turn: Turn): void {
  http.route(
    defineRoute({
      method: 'POST',
      path: '/api/v1/agents/:uuid/chat',
      summary: 'Talk to an agent: one turn of a conversation',
      description:
        'The customer’s `message` is recorded on the conversation (opened when no `conversation_uuid` is given, with the contact found or made from `contact`), ' +
        'the agent answers with its prompt, tools, guard and routing rules, text settings and the contact’s memory (docs/agent-prompt.md), and every agent message ' +
        'and tool call is recorded too, as `POST /conversations/{uuid}/messages` records them. Outside working hours, or past the daily message limit, the agent ' +
        'answers with the configured message and no model is called. Two turns of one conversation run one after the other. ' +
        'A conversation of another agent, or one that is not open, answers 409, as does an agent that is not active. ' +
        'With `Accept: text/event-stream` the turn streams as Server-Sent Events: `delta` `{text}` as the agent speaks, `tool_call` ' +
        '`{name, arguments, status, duration_ms}` per tool, and last `done` with the JSON answer (or `error` with the error envelope). ' +
        'Under `Idempotency-Key` a retry gets the JSON answer of the first turn.',
      tags: ['agents'],
      params: ChatParams,
      body: ChatRequest,
      // Turns wait for the model: each step opens its own short transaction (turn.ts).
      transactional: false,
      response: DataEnvelope(ChatTurn),
      streams: { description: 'Events `delta` `{text}`, `tool_call` `{name, arguments, status, duration_ms}`, then `done` with the JSON answer, or `error` with the error envelope' },
      errors: [404, 409, 502],
      handler: async ({ params, body, em, tenant, req }) => {
        const streamed = wantsEventStream(req.headers.accept);
        const begun = await turn.begin(em, tenant, params.uuid, body);
        if (!streamed) return { data: await turn.run(em, begun) };
        return new EventStream(async (writer) => {
          const answer = { data: await turn.run(em, begun, writer) };
          writer.emit('done', answer);
          return answer;
        });
      },
    }),
  );
}
