export { diffRuns, DELTA_MIN } from './diff-runs';
export { alignSteps, stepKeys, treeKeys, type AlignedRow } from './align-steps';
