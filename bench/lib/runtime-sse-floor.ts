/**
 * The floor of bench/runtime's streamed turn: the same HTTP exchange as `/chat` with
 * `Accept: text/event-stream`, served by a bare node `http` server (in a child process
 * of its own, as the kernel is) that does only what the design must do for the turn:
 *
 *   the statements before the model   floorOpen (runtime-floor.ts): the agent read and
 *                                     the first transaction
 *   the model                         the kernel's streamed request body, to the same
 *                                     scripted model, read by the kernel's own stream
 *                                     reader (core/llm/openai-stream.ts), each delta
 *                                     written to the client as it is passed on
 *   the statements after it           floorClose: the last transaction and the usage row
 *   done                              the conversation's uuid
 *
 * No routing, authentication, validation, tenant context, ORM, bus or prompt assembly.
 * The client is the platform's (runtime-clients.ts `platformTurn`), so the first delta
 * is measured the same way: from the model's first content chunk to the client's
 * arrival. What the design's own work and the machine's load leave of the 5 ms goal.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import { Agent, request } from 'undici';
import { ChatStreamReader } from '../../core/llm/openai-stream';
import { floorClose, floorOpen, type FloorTarget } from './runtime-floor';

export interface SseFloorSettings {
  databaseUrl: string;
  tenantUuid: string;
  agentUuid: string;
  /** The kernel's pool settings (bench/runtime.ts FLOOR_POOL). */
  pool: { max: number; min: number; idleTimeoutMillis: number };
  historyMessages: number;
  modelUrl: string;
  /** The kernel's streamed model request body, as JSON text, captured with `sampleId` as its turn id. */
  streamed: string;
  sampleId: string;
}

/** The turn id in a customer message of the bench (runtime-scripted.ts `userMessage`). */
const TURN_ID = /\[turn ([^\]]+)\]/;

export async function startSseFloorServer(settings: SseFloorSettings): Promise<{ url: string; close(): Promise<void> }> {
  const pool = new Pool({ connectionString: settings.databaseUrl, ...settings.pool });
  const target: FloorTarget = { pool, tenantUuid: settings.tenantUuid, agentUuid: settings.agentUuid, historyMessages: settings.historyMessages };
  const dispatcher = new Agent({ keepAliveTimeout: 60_000 });

  const turn = async (body: { message: string; conversation_uuid?: string }, res: http.ServerResponse) => {
    const turnId = TURN_ID.exec(body.message)?.[1];
    if (!turnId) throw new Error(`no turn id in ${body.message}`);
    const state = await floorOpen(target, body.conversation_uuid ?? null, turnId);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const reader = new ChatStreamReader((text) => res.write(`event: delta\ndata: ${JSON.stringify({ text })}\n\n`));
    const model = await request(`${settings.modelUrl}/chat/completions`, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: settings.streamed.split(settings.sampleId).join(turnId),
    });
    for await (const chunk of model.body) reader.push(chunk);
    const answer = reader.finish('bench-model');
    await floorClose(target, state, [{ sender: 'agent', type: 'text', content: answer.content ?? '' }], [], 1);
    res.end(`event: done\ndata: ${JSON.stringify({ data: { conversation_uuid: state.conversationUuid } })}\n\n`);
  };

  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      turn(JSON.parse(Buffer.concat(chunks).toString('utf8')), res).catch((error) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(`event: error\ndata: ${JSON.stringify({ error: String((error as Error).message ?? error) })}\n\n`);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await dispatcher.close();
      await pool.end();
    },
  };
}
