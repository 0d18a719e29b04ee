import type { FlowsRuntime } from '../flows-runtime';

// TODO(session 3): being built.
export function registerEngine(_runtime: FlowsRuntime): void {}
