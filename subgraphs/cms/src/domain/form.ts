import type { FormDefinition } from './form-definition.js';

/** A form definition as stored for a site. */
export interface Form extends FormDefinition {
  id: string;
  siteKey: string;
}
