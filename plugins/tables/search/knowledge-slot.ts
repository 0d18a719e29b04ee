import type { AgentSettingsSlot } from '../../agents';
import { assignedTableJson, tablesOfAgents } from './assignments';
import { KnowledgeSettingsSchema } from './search-schemas';

/** `settings.knowledge` of every agent the agents plugin returns: `{tables: [{table_uuid, name, mode}]}`, in two queries per page of agents. */
export const knowledgeSlot: AgentSettingsSlot = {
  key: 'knowledge',
  schema: KnowledgeSettingsSchema,
  async load(em, agentUuids) {
    const tables = await tablesOfAgents(em, agentUuids);
    return new Map([...tables].map(([agentUuid, list]) => [agentUuid, { tables: list.map(assignedTableJson) }]));
  },
};
