import { definePlugin } from 'switchboard/core';
import { contributeFlowApp } from 'switchboard/flows';
import { acmeLeadsApp } from './app';

export { acmeLeadsApp } from './app';

/**
 * Adds the Acme Leads app to the flow studio. `contributeFlowApp` contributes it and,
 * once the app names `deps` (services of other plugins its code uses, each plugin listed
 * in plugin.json's `dependsOn`), has the kernel resolve them and hands them to its code.
 * The id and the dependencies are plugin.json's alone: the code does not repeat them.
 */
export default definePlugin({ ...contributeFlowApp(acmeLeadsApp) });
