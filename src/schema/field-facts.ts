import { API_FIELD_FACTS } from '../generated/api-facts';
import type { GeneratedFieldFacts } from './generated-facts';

export type { GeneratedFieldFacts } from './generated-facts';

export interface FieldFacts extends Partial<GeneratedFieldFacts> {
  /** A pointer, or a scalar without omitempty: its zero value ("", 0, false) appears in JSON. */
  keepZero?: true;
}

for (const fields of Object.values(API_FIELD_FACTS)) {
  for (const facts of Object.values(fields)) if (facts.pointer || !facts.omitempty) (facts as FieldFacts).keepZero = true;
}

/** Keyed by fully-qualified proto message name (no leading dot), then JSON field name (an inlined struct's proto name). */
export const FIELD_FACTS: Record<string, Record<string, FieldFacts>> = API_FIELD_FACTS;
