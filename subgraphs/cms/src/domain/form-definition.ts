import { validationError, type FieldProblem } from '@svc/kit';
import { compileFieldPattern } from './field-pattern.js';

export const FIELD_TYPES = ['text', 'textarea', 'email', 'tel', 'url', 'enum'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** One field of a form, as stored per site. */
export interface FormField {
  name: string;
  type: FieldType;
  required: boolean;
  /** Characters; default 1000 (textarea 10000). */
  maxLength?: number;
  /** Anchored regular expression (RE2 syntax, linear-time; see field-pattern.ts) the value must match. */
  pattern?: string;
  /** Allowed values for `enum` fields. */
  options?: string[];
  label?: string;
}

export interface FormDefinition {
  formKey: string;
  name: string;
  fields: FormField[];
  /** A hidden field bots fill in; a submission with it is stored as spam and not forwarded. */
  honeypotField?: string;
  webhookUrl?: string;
  /** Submissions per client per minute; default from SVC_FORM_RATE_LIMIT_PER_MINUTE. */
  rateLimitPerMinute?: number;
}

const NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const KEY = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** Checks a definition before it is stored: a broken definition would reject every submission. */
export function checkFormDefinition(def: FormDefinition): FormDefinition {
  const problems: FieldProblem[] = [];
  if (!KEY.test(def.formKey)) problems.push({ pointer: '/formKey', detail: `must be lower-case letters, digits and dashes; got ${JSON.stringify(def.formKey)}` });
  if (!def.fields.length) problems.push({ pointer: '/fields', detail: 'must declare at least one field' });
  const seen = new Set<string>();
  def.fields.forEach((field, i) => {
    const at = `/fields/${i}`;
    if (!NAME.test(field.name)) problems.push({ pointer: `${at}/name`, detail: `must be an identifier; got ${JSON.stringify(field.name)}` });
    if (seen.has(field.name)) problems.push({ pointer: `${at}/name`, detail: `duplicates field ${JSON.stringify(field.name)}` });
    seen.add(field.name);
    if (!FIELD_TYPES.includes(field.type)) problems.push({ pointer: `${at}/type`, detail: `must be one of ${FIELD_TYPES.join(', ')}; got ${JSON.stringify(field.type)}` });
    if (field.type === 'enum' && !field.options?.length) problems.push({ pointer: `${at}/options`, detail: 'enum fields need at least one option' });
    if (field.maxLength !== undefined && (!Number.isInteger(field.maxLength) || field.maxLength < 1 || field.maxLength > 100_000)) {
      problems.push({ pointer: `${at}/maxLength`, detail: `must be an integer from 1 to 100000; got ${field.maxLength}` });
    }
    if (field.pattern !== undefined) {
      const compiled = compileFieldPattern(field.pattern);
      if ('problem' in compiled) problems.push({ pointer: `${at}/pattern`, detail: compiled.problem });
    }
  });
  if (def.honeypotField && seen.has(def.honeypotField)) problems.push({ pointer: '/honeypotField', detail: 'must not be one of the real fields' });
  if (def.webhookUrl !== undefined && !/^https?:\/\//.test(def.webhookUrl)) problems.push({ pointer: '/webhookUrl', detail: `must be an http(s) URL; got ${JSON.stringify(def.webhookUrl)}` });
  if (problems.length) throw validationError(problems);
  return def;
}
