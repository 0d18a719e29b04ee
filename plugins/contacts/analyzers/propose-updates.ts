import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { LlmNotConfiguredError, LlmRequestError, LlmResponseError, salvageAnswer, type BusMessage, type LlmService, type Logger } from '../../../core';
import type { ConversationReader, SessionClosedEvent } from '../../conversations';
import type { ContactsSettings } from '../contacts-config';
import { Contact, ContactAnalyzer, ContactApproval } from '../entities';
import { approvalFieldOf, targetsOf, type AnalyzerTarget } from './analyzer-targets';
import { answerSchema, isStageAnswer, isValueAnswer } from './answer-schema';
import { applyApproval } from './apply-approval';
import { checkBuiltIn, checkCustom, currentValueOf, sameValue } from './field-values';
import { proposalPrompt } from './prompts';
import { transcriptOf } from './transcript';

export const ANALYZERS_PURPOSE = 'contacts.analyzers';
export const ANSWER_SCHEMA_NAME = 'contact_updates';

export interface ProposerDeps {
  llm: LlmService;
  logger: Logger;
  conversations: ConversationReader;
  settings: ContactsSettings;
}

/** What one analyzer's answer suggests writing. */
export interface Proposal {
  analyzer: ContactAnalyzer;
  field: string;
  value: unknown;
  reason: string;
}

/**
 * Failures another delivery would repeat (a refused request, an unusable answer, no
 * model configured): logged, and the message completes. Anything else, an unavailable
 * model above all, is thrown back to the bus, which delivers the message again with
 * backoff (and dead-letters it after its last attempt, for an operator to replay).
 */
const isFinal = (error: unknown): boolean => error instanceof LlmRequestError || error instanceof LlmResponseError || error instanceof LlmNotConfiguredError;

/** What the model's answer about one session suggests, before anything is written. */
export interface ProposedUpdates {
  sessionUuid: string;
  contactUuid: string;
  proposals: Proposal[];
}

/**
 * The `session.closed` consumer, in its two phases. `prepare` (before the message's
 * transaction opens, so no database connection waits on the model): when the session's
 * contact exists and the tenant has enabled analyzers, asks the model once (a member
 * per analyzer) what the session tells about the contact. `handle` (in the message's
 * transaction) turns each answer that would change the contact into an approval,
 * pending or, under the analyzer's `auto_approve`, approved and written. A contact
 * keeps at most one pending approval per field: a new one replaces it.
 */
export function createUpdateProposer({ llm, logger, conversations, settings }: ProposerDeps) {
  const prepare = async (message: BusMessage<SessionClosedEvent>, em: EntityManager): Promise<ProposedUpdates | null> => {
    const contactUuid = message.payload.contact_uuid;
    if (!message.tenant || !contactUuid) return null;
    const analyzers = await em.find(ContactAnalyzer, { enabled: true }, { orderBy: { createdAt: 'asc', uuid: 'asc' } });
    if (analyzers.length === 0) return null;
    const contact = await em.findOne(Contact, { uuid: contactUuid });
    if (!contact) return null;
    const targets = await targetsOf(em, analyzers.map((analyzer) => analyzer.analyzerId));
    if (targets.length === 0) return null;
    const session = await conversations.sessionWithMessages(message.payload.session_uuid);
    if (!session || session.status !== 'closed' || session.contact_uuid !== contactUuid || session.messages.length === 0) return null;

    const byId = new Map(analyzers.map((analyzer) => [analyzer.analyzerId, analyzer]));
    const tasks = targets.map((target) => ({ target, instruction: byId.get(target.analyzerId)!.instruction }));
    const record = Object.fromEntries(targets.map((target) => [approvalFieldOf(target), currentValueOf(contact, approvalFieldOf(target))]));
    let answer: Record<string, unknown> | null;
    try {
      ({ value: answer } = await llm.jsonResult<Record<string, unknown>>({
        messages: proposalPrompt(tasks, record, transcriptOf(session.messages)),
        schema: answerSchema(targets),
        schemaName: ANSWER_SCHEMA_NAME,
        purpose: ANALYZERS_PURPOSE,
        model: settings.analyzerModel || undefined,
      }));
    } catch (error) {
      if (!isFinal(error)) throw error;
      answer = salvageAnswer(error);
      // LLM errors name the problem, never the prompt or the answer.
      logger.warn('contact analyzers failed', { session_uuid: session.uuid, contact_uuid: contactUuid, error: `${(error as Error).name}: ${(error as Error).message}`, salvaged: answer !== null });
      if (!answer) return null;
    }

    const proposals = new Map<string, Proposal>();
    for (const target of targets) {
      const proposal = proposalOf(target, answer[target.analyzerId], byId.get(target.analyzerId)!, settings);
      // Stages share `pipeline_stage`: the stage of the analyzer created last wins (create stages in pipeline order).
      if (proposal) proposals.set(proposal.field, proposal);
    }
    if (proposals.size === 0) return null;
    return { sessionUuid: session.uuid, contactUuid, proposals: [...proposals.values()] };
  };

  const handle = async (em: EntityManager, prepared: ProposedUpdates | null): Promise<void> => {
    if (!prepared) return;
    const { sessionUuid, contactUuid, proposals } = prepared;
    // The contact may have changed while the model thought: compare with it as it is now, under its lock.
    const locked = await em.findOne(Contact, { uuid: contactUuid }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!locked) return;
    let created = 0;
    for (const proposal of proposals) {
      const current = currentValueOf(locked, proposal.field);
      if (sameValue(current, proposal.value)) continue;
      await em.nativeDelete(ContactApproval, { contactUuid, field: proposal.field, status: 'pending' });
      const approval = em.create(ContactApproval, {
        contactUuid,
        analyzerId: proposal.analyzer.analyzerId,
        field: proposal.field,
        currentValue: current,
        proposedValue: proposal.value,
        sessionUuid,
        reason: proposal.reason,
      });
      created++;
      if (!proposal.analyzer.autoApprove) continue;
      const outcome = await applyApproval(em, locked, approval, settings);
      if (outcome.ok) {
        approval.status = 'approved';
        approval.decidedAt = new Date();
      } else {
        approval.reason = `${approval.reason} Not approved automatically: ${outcome.problem}.`.trim();
      }
    }
    await em.flush();
    logger.info('contact updates proposed', { session_uuid: sessionUuid, contact_uuid: contactUuid, approvals: created });
  };

  return { prepare, handle };
}

/**
 * What one member of the answer suggests: nothing for a null value, a stage not
 * reached or an answer off its schema; otherwise the value, normalized for its field
 * when it can be (a value the field would refuse is still proposed as said, for a
 * person to judge).
 */
function proposalOf(target: AnalyzerTarget, part: unknown, analyzer: ContactAnalyzer, settings: ContactsSettings): Proposal | null {
  const field = approvalFieldOf(target);
  if (target.kind === 'stage') {
    if (!isStageAnswer(part) || !part.reached) return null;
    return { analyzer, field, value: target.stage, reason: part.reason.trim() };
  }
  if (!isValueAnswer(part) || part.value === null || part.value.trim() === '') return null;
  const said = part.value.trim();
  const check = target.kind === 'built_in' ? checkBuiltIn(target.field, said, settings) : checkCustom(target.dataType, said);
  return { analyzer, field, value: check.ok ? check.value : said, reason: part.reason.trim() };
}
