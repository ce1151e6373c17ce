/**
 * Writes src/generated/types from the facts already generated (src/generated/api-facts.ts, read
 * from its build in dist/), for when the typed interfaces change and the release does not:
 *
 *   npm run build && npm run gen:api-types
 *
 * `npm run gen:api-facts` writes them too.
 */
import path from 'node:path';
import { writeApiTypes, type TypeFacts } from './api-types';

const root = path.resolve(__dirname, '..');
const generated = require(path.join(root, 'dist/generated/api-facts.js')) as {
  API_RELEASE: string;
  API_FIELD_FACTS: Record<string, Record<string, TypeFacts>>;
  STRING_LIST_MESSAGES: string[];
};
writeApiTypes(root, generated.API_RELEASE, generated.API_FIELD_FACTS, generated.STRING_LIST_MESSAGES);
console.log(`wrote src/generated/types from ${Object.keys(generated.API_FIELD_FACTS).length} messages`);
