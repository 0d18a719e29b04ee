import type { FlowsRuntime } from '../flows-runtime';

// TODO(session 3): being built.
export function registerBuilderRoutes(_runtime: FlowsRuntime): void {}
