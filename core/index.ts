/**
 * Switchboard's plugin API: everything a plugin imports from the kernel.
 * Partner plugins import it as `switchboard/core`. Versioned as PLUGIN_API_VERSION
 * (with `switchboard/flows`): a plugin's manifest names the version it was built for.
 */
export { PLUGIN_API_VERSION } from './plugin/plugin-api-version';
export { definePlugin, isPlugin, type Plugin, type PluginDefinition, type PluginContext, type PluginMigration } from './plugin/define-plugin';
export { createExtensionPoint, type ExtensionPoint, type ExtensionRegistry, type Contribution } from './plugin/extension-point';
export { ContributedDeps, contributeWithDeps, contributedDepsRef, type DepsMap, type ResolvedDeps } from './plugin/contributed-deps';
export { createServiceRef, createServiceFactory, type ServiceRef, type ServiceFactory, type ServiceFactoryContext } from './plugin/service-ref';
export {
  coreServices,
  configRef,
  type HttpService,
  type OrmService,
  type PluginConfig,
  type PluginConfigRef,
  type TypedPluginConfig,
  type UntypedPluginConfig,
  type TenantService,
  type LifecycleService,
  type ReadinessService,
  type ProcessRole,
} from './services/core-services';
export { scheduleHousekeeping, type HousekeepingJob } from './services/housekeeping';
export type { ConfigValues, ConvictSchema } from './config/convict-schema';
export { EventStream, wantsEventStream, type EventStreamWriter } from './http/event-stream';
export { defineRoute, Reply, JsonText, type RouteDefinition, type HandlerContext, type HttpMethod, type RouteAuth, type Scope } from './http/route';
export { listRoute, readRoute, deleteRoute, type AnyRoute } from './http/route-shapes';
export {
  HttpError,
  BadRequestError,
  UnauthorizedError,
  ForbiddenError,
  NotFoundError,
  ConflictError,
  ValidationError,
  ServiceUnavailableError,
  type FieldErrors,
} from './http/http-errors';
export * from './http/schemas';
export { isHttpUrl } from './http/http-url';
export type { UploadSpec, UploadedFile, IncomingFile, ReceivedFile } from './http/multipart-upload';
export type { BusService, BusMessage, PublishOptions, ConsumerOptions, ConsumerContext, PrepareContext, MessageHandler, BatchConsumerOptions, BatchMessageHandler, RetryPolicy } from './bus/bus-types';
export { defineSecretColumn, type SecretColumn, type SecretColumnSpec } from './secrets/secret-column';
export type { SecretsService } from './secrets/secrets';
export type { SecretContext } from './secrets/secret-context';
export { SecretDecryptionError, type SecretDecryptionFailure } from './secrets/secret-decryption-error';
export {
  EgressError,
  EgressRefusedError,
  EgressTimeoutError,
  EgressResponseTooLargeError,
  EgressTooManyRedirectsError,
  EgressNetworkError,
  type Egress,
  type EgressRequestOptions,
  type EgressResponse,
} from './egress';
export type {
  ChatMessage,
  SystemMessage,
  UserMessage,
  AssistantMessage,
  ToolMessage,
  ChatRequest,
  ChatResult,
  ToolCall,
  ToolDefinition,
  ToolChoice,
  ResponseFormat,
  TokenUsage,
  FinishReason,
  JsonChatRequest,
  JsonChatResult,
  LlmProvider,
  LlmService,
} from './llm/llm-types';
export { llmProviders } from './llm/llm-extension';
export type { MetricsService, MetricSpec, MetricLabels, CounterMetric, GaugeMetric, HistogramMetric } from './metrics/metrics-service';
export type { QuotaService, QuotaCount } from './limits/quota-service';
export { QuotaExceededError, ModelTokenQuotaExceededError } from './limits/quota-errors';
export { QUOTA_NAMES, QuotaValuesSchema, EffectiveQuotasSchema, setTenantQuotas, tenantQuotasJson, type QuotaName, type QuotaValues, type EffectiveQuotas } from './limits/quotas';
export { LlmError, LlmNotConfiguredError, LlmRequestError, LlmUnavailableError, LlmResponseError } from './llm/llm-errors';
export { salvageAnswer } from './llm/structured-output';
export { TenantScopedEntity } from './data/tenant-scoped-entity';
export { TenantScopedChildEntity } from './data/tenant-scoped-child-entity';
export { findByUuid } from './data/find-by-uuid';
export { boundQuery } from './data/bound-query';
export { preparedStatement, type PreparedStatement } from './data/prepared-statements';
export { statementForeignKey, type StatementForeignKey } from './data/statement-foreign-key';
export { newUuid } from './data/uuid';
export {
  isTimeZone,
  assertTimeZone,
  localParts,
  offsetMsAt,
  offsetAt,
  formatOffset,
  formatDate,
  localDateOf,
  localDateTimeOf,
  describeInstant,
  parseDate,
  clockMinutes,
  addDays,
  addCivilDays,
  isoWeekdayIndex,
  civilWeekdayIndex,
  wallClockToInstants,
  resolveWallClock,
  localDayStart,
  type LocalParts,
  type CivilDate,
  type WallClockPick,
} from './time/zone-time';
export type { TenantRef } from './context/request-context';
export { requestTokenReference, tokenIsLive, activeTenant } from './tenancy/token-binding';
export type { Logger } from './logging/logger';
export { BootError } from './errors/boot-error';
export { Type, type Static, type TSchema } from '@sinclair/typebox';
