/**
 * Prompt scorer: a rendered prompt that still holds template placeholders
 * ("{context}", "{{question}}", "${name}") was not filled in. Whether a prompt
 * dropped the context it was given is a lineage question, answered by the
 * blame engine (rule dropped-context).
 */
import type { Step } from '../../../src-shared/model';
import { makeCheck, type Check } from './check';
import { quoteStep } from '../text/evidence-quote';
import { stringLeaves } from '../text/json-text';
import type { Settings } from './settings';

const PLACEHOLDER = /\{\{\s*[A-Za-z_][\w.]*\s*\}\}|\$\{[A-Za-z_]\w*\}|(?<![{\\])\{[a-z_][a-z0-9_]*\}(?!\})/;

export function scorePrompt(step: Step, settings: Settings): Check[] {
  if (step.status !== 'ok') return [];
  for (const leaf of stringLeaves(step.output)) {
    const m = PLACEHOLDER.exec(leaf.text);
    if (m) {
      return [
        makeCheck('prompt', 'prompt.unfilled_placeholder', settings.scoring.prompt.unfilled_placeholder_score, `left the placeholder "${m[0]}" unfilled in the rendered prompt`, {
          evidence: quoteStep(step, 'output', m[0]),
        }),
      ];
    }
  }
  return [];
}
