import type { AgentJson } from '../../agents';

/** What a call reads of its agent's `settings.voice` (the agents plugin fills in defaults). */
export interface VoiceConfig {
  customerSpeakFirst: boolean;
  inboundFirstMessage: string;
  outboundFirstMessage: string;
  voiceMailMessage: string;
  endCallMessage: string;
  silenceMessage: string;
  maxSilencePrompts: number;
  language: string;
  voice: string | null;
  audioRecording: boolean;
  silenceTimeoutSeconds: number;
  maxCallDurationSeconds: number;
  maxCallDurationMessage: string;
}

type Group = Record<string, unknown> | undefined;

const text = (group: Group, key: string): string => (typeof group?.[key] === 'string' ? (group[key] as string) : '');
const integer = (group: Group, key: string, fallback: number): number => (Number.isInteger(group?.[key]) ? (group![key] as number) : fallback);

export function voiceConfig(agent: AgentJson): VoiceConfig {
  const voice = ((agent.settings as Record<string, unknown> | undefined)?.voice ?? {}) as Record<string, Group>;
  const { interaction, voice_profile: profile, call_behavior: behavior } = voice;
  return {
    customerSpeakFirst: interaction?.customer_speak_first === true,
    inboundFirstMessage: text(interaction, 'inbound_first_message'),
    outboundFirstMessage: text(interaction, 'outbound_first_message'),
    voiceMailMessage: text(interaction, 'voice_mail_message'),
    endCallMessage: text(interaction, 'end_call_message'),
    silenceMessage: text(interaction, 'silence_message'),
    maxSilencePrompts: integer(interaction, 'max_silence_prompts', 3),
    language: text(profile, 'language') || 'en-US',
    voice: text(profile, 'voice_name') || null,
    audioRecording: behavior?.audio_recording === true,
    silenceTimeoutSeconds: integer(behavior, 'silence_timeout_seconds', 10),
    maxCallDurationSeconds: integer(behavior, 'max_call_duration_seconds', 1800),
    maxCallDurationMessage: text(behavior, 'max_call_duration_message'),
  };
}

export interface PhoneChannel {
  uuid: string;
  connectionUuid: string;
}

/** The agent's active `phone` channel that names a connection: the line its calls go out on. */
export function phoneChannel(agent: AgentJson): PhoneChannel | null {
  const channels = (agent.channels ?? []) as Array<{ uuid: string; type: string; is_active: boolean; config?: Record<string, unknown> }>;
  for (const channel of channels) {
    const connection = channel.config?.connection_uuid;
    if (channel.type === 'phone' && channel.is_active && typeof connection === 'string') return { uuid: channel.uuid, connectionUuid: connection.toLowerCase() };
  }
  return null;
}

/** The agent's active numbers that can call, in the agent's order. */
export function callingNumbers(agent: AgentJson): string[] {
  const numbers = (agent.phone_numbers ?? []) as Array<{ number: string; status: string; capabilities?: { call?: boolean } }>;
  return numbers.filter((number) => number.status === 'active' && number.capabilities?.call === true).map((number) => number.number);
}
