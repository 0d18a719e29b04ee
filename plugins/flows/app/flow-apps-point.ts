import { createExtensionPoint } from '../../../core';
import type { FlowAppDefinition } from './flow-app';

/** Where plugins add apps to the flow studio; two apps with one uid are a boot error. */
export const flowApps = createExtensionPoint<FlowAppDefinition>({ id: 'flows.apps', keyOf: (app) => app.uid });
