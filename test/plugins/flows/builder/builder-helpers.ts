import type { ApiClient } from '../../../../core/testing';

/** Shared helpers of the builder tests (not a test file itself). */

export type Json = Record<string, any>;

export async function createFlow(api: ApiClient, name = 'Flow'): Promise<Json> {
  return (await api.post('/api/v1/flow').send({ name }).expect(201)).body.data;
}

export async function readFlow(api: ApiClient, uuid: string): Promise<Json> {
  return (await api.get(`/api/v1/flow/${uuid}`).expect(200)).body.data;
}

/** Adds a step expecting 201 and returns it. */
export async function addStep(api: ApiClient, flowUuid: string, body: Json): Promise<Json> {
  const res = await api.post(`/api/v1/flow/${flowUuid}/steps`).send(body);
  if (res.status !== 201) throw new Error(`POST steps -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export const echo = (message: string, extra: Json = {}) => ({ app_uid: 'kit', action_key: 'echo', config: { message }, ...extra });
export const check = (value = 'yes', extra: Json = {}) => ({ app_uid: 'kit', action_key: 'check', config: { value }, ...extra });
export const manualTrigger = { app_uid: 'kit', trigger_key: 'manual', config: {} };

/** A flow with the `kit.manual` trigger as step 1. */
export async function flowWithTrigger(api: ApiClient, name = 'Flow'): Promise<{ flow: Json; trigger: Json }> {
  const flow = await createFlow(api, name);
  const trigger = await addStep(api, flow.uuid, manualTrigger);
  return { flow, trigger };
}

/** The flow's steps as `position: message` lines (echo steps by their message, others by app.key): easy to compare whole. */
export function outline(flow: Json): string[] {
  return flow.steps.map((step: Json) => `${step.position}: ${step.config.message ?? `${step.app.uid}.${step.trigger?.key ?? step.action?.key}`}`);
}
