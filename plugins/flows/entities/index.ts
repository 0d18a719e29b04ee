export { Flow, type FlowStatus } from './flow.entity';
export { FlowStep, type StepKind, type StepStatus } from './flow-step.entity';
export { FlowVersion } from './flow-version.entity';
export { FlowExecution, type ExecutionStatus } from './flow-execution.entity';
export { FlowExecutionStep, type ExecutionStepStatus } from './flow-execution-step.entity';
export { FlowConnection, type ConnectionStatus } from './flow-connection.entity';
export { FlowTriggerCursor } from './flow-trigger-cursor.entity';
export { FlowOAuthState } from './flow-oauth-state.entity';
