export { blameRun } from './blame-run';
export { gateDecision } from './gate-decision';
