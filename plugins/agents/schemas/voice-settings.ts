import { Component, Type, Uuid, type Static } from '../../../core';
import { Label, LanguageCode, OpenObject, Text, partialDeep, group } from './formats';

/** `settings.voice`: how the agent behaves on calls. Every group and member of the spec. */
export const VoiceSettings = Component('VoiceSettings', Type.Object(
  {
    interaction: group(
      {
        customer_speak_first: Type.Boolean({ description: 'Wait for the caller to speak before the first message' }),
        inbound_first_message: Text('First line on an inbound call'),
        outbound_first_message: Text('First line on an outbound call'),
        voice_mail_message: Text('Left when a voice mail answers'),
        end_call_message: Text('Said before hanging up'),
        silence_message: Text('Said when the caller stays silent'),
        max_silence_prompts: Type.Integer({ minimum: 0, maximum: 20, description: 'Silence prompts before the call ends' }),
      },
      'Opening, closing and silence lines',
    ),
    interruption: group({ mode: Label('How readily the agent yields when the caller talks over it', 'balanced') }, 'Barge-in behaviour'),
    voice_profile: group(
      {
        language: LanguageCode('Spoken language: a `code` from `GET /api/v1/language`'),
        voice_uuid: Type.Union([Uuid(), Type.Null()], { description: 'The synthetic voice, or null for the default' }),
        voice_name: Type.String({ maxLength: 200 }),
      },
      'The voice the agent speaks with',
    ),
    call_behavior: group(
      {
        audio_recording: Type.Boolean(),
        background_sound: Type.Boolean(),
        silence_timeout_seconds: Type.Integer({ minimum: 1, maximum: 3600, description: 'Seconds of silence before a silence prompt' }),
        max_call_duration_seconds: Type.Integer({ minimum: 30, maximum: 86_400, description: 'A call is ended after this long' }),
        max_call_duration_message: Text('Said when the maximum duration is reached'),
      },
      'Recording and call limits',
    ),
    compliance: group({ eu_gdpr_compliance: Type.Boolean(), hipaa_compliance: Type.Boolean() }, 'Regulatory modes'),
    normalizers: group(
      {
        outbound: OpenObject('Number normalization applied to outbound dialing'),
        inbound: OpenObject('Number normalization applied to inbound caller ids'),
      },
      'Phone number normalization',
    ),
  },
  { additionalProperties: false, description: 'Voice-channel behaviour, by group' },
));
export type VoiceSettings = Static<typeof VoiceSettings>;

export const VoiceSettingsWrite = partialDeep(VoiceSettings);

/**
 * What an agent has until a client says otherwise (the spec leaves defaults open;
 * these are ours, and GET always shows the effective values).
 */
export const voiceDefaults: VoiceSettings = {
  interaction: {
    customer_speak_first: false,
    inbound_first_message: '',
    outbound_first_message: '',
    voice_mail_message: '',
    end_call_message: '',
    silence_message: 'Are you still there?',
    max_silence_prompts: 3,
  },
  interruption: { mode: 'balanced' },
  voice_profile: { language: 'en-US', voice_uuid: null, voice_name: '' },
  call_behavior: {
    audio_recording: false,
    background_sound: false,
    silence_timeout_seconds: 10,
    max_call_duration_seconds: 1800,
    max_call_duration_message: '',
  },
  compliance: { eu_gdpr_compliance: false, hipaa_compliance: false },
  normalizers: { outbound: {}, inbound: {} },
};

