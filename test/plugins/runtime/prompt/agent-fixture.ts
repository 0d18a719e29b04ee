import type { AgentJson } from '../../../../plugins/agents';
import { textDefaults } from '../../../../plugins/agents/schemas/text-settings';

/** A whole agent as the agents plugin returns it (`toJson`), every list filled; `overrides` replace members. */
export function agentFixture(overrides: Record<string, unknown> = {}): AgentJson {
  const text = structuredClone(textDefaults) as Record<string, any>;
  return {
    agent_uuid: '0190a000-0000-7000-8000-000000000001',
    name: 'Reception',
    description: 'Front desk of a dental clinic',
    company_name: 'Smile Clinic',
    role: 'Receptionist',
    objective: 'Book check-ups',
    tone: 'Warm',
    behavior_guidelines: 'Patient and clear',
    company_service: 'Check-ups, cleaning, whitening',
    topic: 'Dental appointments',
    length_detail: 'Short replies',
    interest_of_product: 'Whitening offers',
    negative_response: 'Thank them and do not insist',
    custom_prompt: 'Always confirm the date back to the customer.',
    recommendations: 'Suggest a cleaning with every check-up',
    status: 'active',
    language: 'en-US',
    speed: 'normal',
    timezone: 'Europe/Madrid',
    appointment_scheduling_enabled: false,
    appointment_scheduling_randomly: false,
    custom_llm_url: null,
    settings: { voice: {}, text, memorize: null, evaluation: null },
    guidelines: [
      { uuid: '0190a000-0000-7000-8000-0000000000a2', content: 'Second guideline', order: 2 },
      { uuid: '0190a000-0000-7000-8000-0000000000a1', content: 'First guideline', order: 1 },
    ],
    notes: [{ uuid: '0190a000-0000-7000-8000-0000000000b1', content: 'Parking is free', order: 0 }],
    procedures: [
      {
        uuid: '0190a000-0000-7000-8000-0000000000c1',
        name: 'Booking',
        description: 'How to book a visit',
        steps: [
          { order: 2, description: 'Book it', intent_uuid: '0190a000-0000-7000-8000-0000000000d1' },
          { order: 1, description: 'Ask for a date', intent_uuid: null },
        ],
      },
    ],
    training: [
      { uuid: '0190a000-0000-7000-8000-0000000000e1', content: 'How much is a cleaning?', intent: 'pricing', response: 'A cleaning is 60 EUR.' },
      { uuid: '0190a000-0000-7000-8000-0000000000e2', content: 'Are you open Saturdays?', intent: '', response: 'Yes, until 2 PM.' },
    ],
    intents: [
      {
        intent_uuid: '0190a000-0000-7000-8000-0000000000d1',
        key: 'book_visit',
        name: 'Book a visit',
        description: 'The customer wants a visit',
        recommendation_actions: '',
        confidence_threshold: 0.7,
        is_system: false,
        intent_llm_handle_by_response: false,
        webhook: { url: 'https://crm.example.com/hooks/INTENT-URL-SECRET', has_auth_token: true },
        parameters: [],
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      },
    ],
    webhooks: [
      {
        webhook_uuid: '0190a000-0000-7000-8000-0000000000f1',
        url: 'https://hooks.example.com/WEBHOOK-URL-SECRET',
        events: ['message_created'],
        is_active: true,
        has_secret: true,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      },
    ],
    appointments: {},
    routing_rules: [],
    guard_rules: [],
    phone_numbers: [],
    channels: [],
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    ...overrides,
  } as AgentJson;
}

/** The agent's `settings.text` (mutable, for a test to change). */
export const textOf = (agent: AgentJson) => (agent.settings as Record<string, any>).text as Record<string, any>;
