export { blameRun, type BlameContext } from './blame-run';
export { gateDecision } from './gate-decision';
export { inferLineage, upstreamOf, forwardPath, type Lineage } from './lineage';
export { buildRunGraph, type RunGraph } from './run-graph';
export { stepSignature, outcomeClass } from './spectrum';
export { valuesOf } from './value-features';
