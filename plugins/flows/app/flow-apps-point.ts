import { createExtensionPoint } from '../../../core';
import type { FlowAppDefinition, FlowAppExtension } from './flow-app';

/** Where plugins add apps to the flow studio; two apps with one uid are a boot error. */
export const flowApps = createExtensionPoint<FlowAppDefinition>({ id: 'flows.apps', keyOf: (app) => app.uid });

/**
 * Where plugins add triggers, actions or option lists to an app another plugin owns
 * (the conversations' triggers join the `agents` app). Only adds: a key the app
 * already has, or an app nobody provides, is a boot error naming both.
 */
export const flowAppExtensions = createExtensionPoint<FlowAppExtension>({ id: 'flows.appExtensions' });
