#!/usr/bin/env node
// `npx tb …` from a checkout or an installed package: runs the TypeScript CLI through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src-main/cli/tb.ts');
