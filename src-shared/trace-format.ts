/**
 * The native trace format has one definition, in the TypeScript SDK package (sdk/typescript/src/trace-format.ts),
 * because the published SDK must not import from outside its folder. The app imports it from here.
 */
export * from '../sdk/typescript/src/trace-format.js';
