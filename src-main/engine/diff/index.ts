export { diffRuns } from './diff-runs';
