/**
 * Caps on stored trace fields. A single 50 MB tool payload must not make the
 * runs list or the step panel unusable; the preview keeps what a person reads.
 */
import type { Json } from '../../../src-shared/trace-format';

/** Largest JSON text stored for one field (input, output, metadata...). */
export const MAX_FIELD_CHARS = 1_000_000;
const PREVIEW_CHARS = 20_000;

/** JSON text for a value, or a truncation marker object when it is too large. */
export function storedJson(value: unknown): { text: string | null; truncated: boolean } {
  if (value === undefined) return { text: null, truncated: false };
  const text = JSON.stringify(value);
  if (text.length <= MAX_FIELD_CHARS) return { text, truncated: false };
  const marker: Json = {
    $truncated: true,
    original_chars: text.length,
    preview: text.slice(0, PREVIEW_CHARS),
  };
  return { text: JSON.stringify(marker), truncated: true };
}
