/**
 * The flow-app test kit: `import { runAction } from 'switchboard/flows/testing'`. Runs an
 * app's actions, triggers and option lists as the flows plugin does (input validated
 * against its schema, the context built), with doubles for what they call: a recording
 * egress client and a local vendor server. Part of the plugin API (PLUGIN_API_VERSION).
 */
export { runAction, type RunActionOptions, type ActionRun } from './app-testing/run-action';
export { runTrigger, type RunTriggerOptions, type TriggerRun } from './app-testing/run-trigger';
export { loadOptions, type LoadOptionsOptions, type OptionsLoad } from './app-testing/load-options';
export { inputProblems, type AppCallOptions } from './app-testing/app-call';
export { recordingEgress, type RecordingEgress, type RecordedRequest, type ScriptedReply, type Responder } from './app-testing/recording-egress';
export { recordingBus, type RecordingBus, type PublishedMessage } from './app-testing/recording-bus';
export { startVendorServer, useVendorServer, type VendorServer, type VendorRoutes, type VendorHandler, type VendorRequest, type VendorReply } from './app-testing/vendor-server';
export { startOAuthServer, type OAuthServer, type OAuthServerOptions, type IssuedTokens } from './app-testing/oauth-server';
