/**
 * The replay plan (the runner ↔ SDK contract) has one definition, in the TypeScript SDK package
 * (sdk/typescript/src/replay-plan.ts), because the published SDK must not import from outside its folder.
 * The app imports it from here.
 */
export * from '../sdk/typescript/src/replay-plan.js';
