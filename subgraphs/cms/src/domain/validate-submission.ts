import { validationError, type FieldProblem } from '@svc/kit';
import { compileFieldPattern, fullMatch, linearPattern } from './field-pattern.js';
import type { FormDefinition, FormField } from './form-definition.js';

// RE2 (linear time) even for the built-in checks: a backtracking e-mail expression is
// quadratic in the value, and values may be up to 100,000 characters long.
const EMAIL = linearPattern('^[^\\s@<>()[\\]\\\\,;:"]+@[^\\s@<>()[\\]\\\\,;:"]+\\.[^\\s@<>()[\\]\\\\,;:"]{2,}$');
const TEL = linearPattern('^\\+?[0-9 ().-]{6,32}$');
const URL_VALUE = linearPattern('^https?://\\S+$');

function defaultMaxLength(field: FormField): number {
  return field.maxLength ?? (field.type === 'textarea' ? 10_000 : 1_000);
}

function show(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
}

function checkField(field: FormField, raw: unknown): string | undefined {
  if (raw === undefined || raw === null || raw === '') return field.required ? 'is required' : undefined;
  if (typeof raw !== 'string') return `must be a string; got ${JSON.stringify(raw)}`;
  if (raw.includes('\u0000')) return 'must not contain NUL characters';
  const value = raw.trim();
  if (!value) return field.required ? 'is required' : undefined;
  const max = defaultMaxLength(field);
  if ([...value].length > max) return `must be at most ${max} characters; got ${[...value].length}`;
  switch (field.type) {
    case 'email':
      if (!fullMatch(EMAIL, value)) return `must be a valid e-mail address; got ${show(value)}`;
      break;
    case 'tel':
      if (!fullMatch(TEL, value)) return `must be a phone number; got ${show(value)}`;
      break;
    case 'url':
      if (!fullMatch(URL_VALUE, value)) return `must be an http(s) URL; got ${show(value)}`;
      break;
    case 'enum':
      if (!field.options?.includes(value)) return `must be one of ${field.options?.join(', ')}; got ${show(value)}`;
      break;
    case 'text':
    case 'textarea':
      break;
  }
  if (field.pattern) {
    const pattern = compileFieldPattern(field.pattern);
    // Only a form stored before patterns were checked as RE2 can get here with one that does not compile.
    if ('problem' in pattern) return 'cannot be checked: the form\'s pattern for it is not supported any more (an editor must define the form again)';
    if (!fullMatch(pattern, value)) return `does not match the required format; got ${show(value)}`;
  }
  return undefined;
}

export interface CheckedSubmission {
  /** Trimmed values of the declared fields that were sent. */
  values: Record<string, string>;
  /** The honeypot field was filled in. */
  spam: boolean;
}

/** Validates every field at once and names every problem; unknown fields are refused too. */
export function validateSubmission(form: FormDefinition, data: Record<string, unknown>): CheckedSubmission {
  const problems: FieldProblem[] = [];
  const values: Record<string, string> = {};
  // Own properties only: a field named `constructor` must not see Object.prototype.
  const own = (name: string): unknown => (Object.hasOwn(data, name) ? data[name] : undefined);
  for (const field of form.fields) {
    const raw = own(field.name);
    const problem = checkField(field, raw);
    if (problem) problems.push({ pointer: `/${field.name}`, detail: `${field.name} ${problem}` });
    else if (typeof raw === 'string' && raw.trim()) values[field.name] = raw.trim();
  }
  const known = new Set([...form.fields.map((f) => f.name), ...(form.honeypotField ? [form.honeypotField] : [])]);
  for (const name of Object.keys(data)) {
    if (!known.has(name)) problems.push({ pointer: `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`, detail: `${JSON.stringify(name)} is not a field of form ${form.formKey}` });
  }
  if (problems.length) throw validationError(problems, `Form ${form.formKey} has ${problems.length} invalid field(s): ${problems.map((p) => p.detail).join('; ')}`);
  const trap = form.honeypotField ? own(form.honeypotField) : undefined;
  return { values, spam: typeof trap === 'string' ? trap.trim() !== '' : trap !== undefined && trap !== null };
}
