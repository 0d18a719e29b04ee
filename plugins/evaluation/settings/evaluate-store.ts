import type { EntityManager } from '@mikro-orm/postgresql';
import type { EffectiveOverride, OverrideSource } from '../../agents';
import type { EvaluateSettings } from '../entities';
import { evaluateOverrides } from './evaluate-overrides';
import type { EvaluateValues } from './evaluate-values';

export type SettingsSource = OverrideSource;

/** Settings as they apply to one agent: its override, else the tenant's default, else the built-in values. */
export type EffectiveSettings = EffectiveOverride<EvaluateSettings, EvaluateValues>;

/** The settings that apply to the agent (current tenant, caller's transaction), in one query. */
export const effectiveSettings = (em: EntityManager, agentUuid: string): Promise<EffectiveSettings> => evaluateOverrides.effective(em, agentUuid);
