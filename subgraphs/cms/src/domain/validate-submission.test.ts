import { describe, expect, it } from '@jest/globals';
import { SvcError, type FieldProblem } from '@svc/kit';
import { thrown } from '@svc/kit/testing/thrown';
import { checkFormDefinition, type FormDefinition, type FormField } from './form-definition.js';
import { validateSubmission } from './validate-submission.js';


function problemsOf(error: SvcError): FieldProblem[] {
  expect(error.code).toBe('BAD_USER_INPUT');
  expect(error.status).toBe(422);
  expect(error.extensions.status).toBe(422);
  expect(error.extensions.code).toBe('BAD_USER_INPUT');
  expect(error.extensions.slug).toBe('validation-failed');
  expect(Array.isArray(error.extensions.errors)).toBe(true);
  return error.extensions.errors as FieldProblem[];
}

const pointersOf = (error: SvcError) => problemsOf(error).map((p) => p.pointer);

function form(fields: FormField[], extra: Partial<FormDefinition> = {}): FormDefinition {
  return { formKey: 'contact', name: 'Contact', fields, ...extra };
}

const field = (name: string, type: FormField['type'], more: Partial<FormField> = {}): FormField => ({ name, type, required: false, ...more });

describe('validateSubmission: required fields', () => {
  const def = form([field('name', 'text', { required: true }), field('company', 'text')]);

  it('accepts a filled required field and omits absent optional ones from values', () => {
    expect(validateSubmission(def, { name: 'Ada' })).toEqual({ values: { name: 'Ada' }, spam: false });
  });

  it.each([
    ['missing', {}],
    ['null', { name: null }],
    ['empty', { name: '' }],
    ['whitespace only', { name: '  \t\n ' }],
  ])('refuses a required field that is %s', (_label, data) => {
    const error = thrown(() => validateSubmission(def, data));
    expect(problemsOf(error)).toEqual([{ pointer: '/name', detail: 'name is required' }]);
  });

  it('accepts empty or whitespace-only optional fields and leaves them out of values', () => {
    expect(validateSubmission(def, { name: 'Ada', company: '   ' }).values).toEqual({ name: 'Ada' });
    expect(validateSubmission(def, { name: 'Ada', company: '' }).values).toEqual({ name: 'Ada' });
    expect(validateSubmission(def, { name: 'Ada', company: null }).values).toEqual({ name: 'Ada' });
  });

  it('refuses non-string values, naming what was sent', () => {
    const error = thrown(() => validateSubmission(def, { name: 42, company: { a: 1 } }));
    expect(problemsOf(error)).toEqual([
      { pointer: '/name', detail: 'name must be a string; got 42' },
      { pointer: '/company', detail: 'company must be a string; got {"a":1}' },
    ]);
  });

  it('treats an omitted optional field as absent even when its name is an Object.prototype member', () => {
    // Field names only have to be identifiers, so `constructor` / `toString` are legal names.
    const def2 = form([field('email', 'email', { required: true }), field('constructor', 'text'), field('toString', 'text')]);
    expect(validateSubmission(def2, { email: 'ada@example.com' })).toEqual({ values: { email: 'ada@example.com' }, spam: false });
  });
});

describe('validateSubmission: trimming and maxLength', () => {
  it('returns trimmed values', () => {
    const def = form([field('name', 'text', { required: true }), field('message', 'textarea')]);
    expect(validateSubmission(def, { name: '  Ada Lovelace \n', message: '\tHello there  ' }).values).toEqual({
      name: 'Ada Lovelace',
      message: 'Hello there',
    });
  });

  it('counts characters, not UTF-16 code units: emoji count as one', () => {
    const def = form([field('mood', 'text', { maxLength: 3 })]);
    // Each emoji is two UTF-16 code units; three of them are six code units but three characters.
    expect(validateSubmission(def, { mood: '😀🎉🚀' }).values).toEqual({ mood: '😀🎉🚀' });
    const error = thrown(() => validateSubmission(def, { mood: '😀🎉🚀✨' }));
    expect(problemsOf(error)).toEqual([{ pointer: '/mood', detail: 'mood must be at most 3 characters; got 4' }]);
  });

  it('checks maxLength on the trimmed value', () => {
    const def = form([field('code', 'text', { maxLength: 3 })]);
    expect(validateSubmission(def, { code: '   abc   ' }).values).toEqual({ code: 'abc' });
    expect(pointersOf(thrown(() => validateSubmission(def, { code: 'abcd' })))).toEqual(['/code']);
  });

  it('defaults maxLength to 1000 for text and 10000 for textarea', () => {
    const def = form([field('t', 'text'), field('ta', 'textarea')]);
    expect(validateSubmission(def, { t: 'x'.repeat(1000), ta: 'y'.repeat(10_000) }).values.t).toHaveLength(1000);
    const error = thrown(() => validateSubmission(def, { t: 'x'.repeat(1001), ta: 'y'.repeat(10_001) }));
    expect(problemsOf(error)).toEqual([
      { pointer: '/t', detail: 't must be at most 1000 characters; got 1001' },
      { pointer: '/ta', detail: 'ta must be at most 10000 characters; got 10001' },
    ]);
  });
});

describe('validateSubmission: typed fields', () => {
  it.each(['ada@example.com', 'a.b+tag@mail.example.co.uk', '  ada@example.com  '])('accepts the e-mail %j', (email) => {
    expect(validateSubmission(form([field('email', 'email')]), { email }).values.email).toBe(email.trim());
  });

  it.each(['ada', 'ada@example', 'ada@example.c', 'a da@example.com', 'ada@@example.com', '<ada@example.com>', '@example.com'])(
    'refuses the e-mail %j',
    (email) => {
      const error = thrown(() => validateSubmission(form([field('email', 'email')]), { email }));
      expect(problemsOf(error)).toEqual([{ pointer: '/email', detail: `email must be a valid e-mail address; got ${JSON.stringify(email)}` }]);
    },
  );

  it.each(['+49 30 1234567', '(030) 123-4567', '555.123.4567', '123456'])('accepts the phone number %j', (tel) => {
    expect(validateSubmission(form([field('phone', 'tel')]), { phone: tel }).values.phone).toBe(tel);
  });

  it.each(['12345', 'call me', '+49 30 CALL-NOW', '1'.repeat(33)])('refuses the phone number %j', (tel) => {
    const error = thrown(() => validateSubmission(form([field('phone', 'tel')]), { phone: tel }));
    expect(problemsOf(error)[0]!.detail).toMatch(/^phone must be a phone number; got /);
  });

  it.each(['https://example.com', 'http://example.com/path?q=1'])('accepts the URL %j', (url) => {
    expect(validateSubmission(form([field('site', 'url')]), { site: url }).values.site).toBe(url);
  });

  it.each(['example.com', 'ftp://example.com', 'javascript:alert(1)', 'https://exa mple.com', 'https://'])('refuses the URL %j', (url) => {
    const error = thrown(() => validateSubmission(form([field('site', 'url')]), { site: url }));
    expect(problemsOf(error)[0]).toEqual({ pointer: '/site', detail: `site must be an http(s) URL; got ${JSON.stringify(url)}` });
  });

  it('accepts only the declared enum options (case-sensitive, after trimming)', () => {
    const def = form([field('kind', 'enum', { options: ['SALES', 'SUPPORT'] })]);
    expect(validateSubmission(def, { kind: ' SUPPORT ' }).values.kind).toBe('SUPPORT');
    const error = thrown(() => validateSubmission(def, { kind: 'sales' }));
    expect(problemsOf(error)).toEqual([{ pointer: '/kind', detail: 'kind must be one of SALES, SUPPORT; got "sales"' }]);
  });

  it('shortens long offending values in messages', () => {
    const long = `${'a'.repeat(100)}@`;
    const error = thrown(() => validateSubmission(form([field('email', 'email')]), { email: long }));
    const detail = problemsOf(error)[0]!.detail;
    expect(detail).toBe(`email must be a valid e-mail address; got ${JSON.stringify(`${'a'.repeat(57)}...`)}`);
  });
});

describe('validateSubmission: patterns', () => {
  it('anchors the pattern to the whole value', () => {
    const def = form([field('zip', 'text', { pattern: '[0-9]{5}' })]);
    expect(validateSubmission(def, { zip: '12345' }).values.zip).toBe('12345');
    for (const zip of ['123456', 'x12345', '12345x', '1234']) {
      const error = thrown(() => validateSubmission(def, { zip }));
      expect(problemsOf(error)).toEqual([{ pointer: '/zip', detail: `zip does not match the required format; got ${JSON.stringify(zip)}` }]);
    }
  });

  it('anchors every alternative of a pattern, not just the first and last', () => {
    const def = form([field('code', 'text', { pattern: 'ab|cd' })]);
    expect(validateSubmission(def, { code: 'ab' }).values.code).toBe('ab');
    expect(validateSubmission(def, { code: 'cd' }).values.code).toBe('cd');
    expect(pointersOf(thrown(() => validateSubmission(def, { code: 'abX' })))).toEqual(['/code']);
    expect(pointersOf(thrown(() => validateSubmission(def, { code: 'Xcd' })))).toEqual(['/code']);
  });

  it('matches patterns with Unicode semantics', () => {
    const def = form([field('initial', 'text', { pattern: '.' })]);
    expect(validateSubmission(def, { initial: '😀' }).values.initial).toBe('😀');
  });

  it('applies a pattern after the type check of typed fields', () => {
    const def = form([field('email', 'email', { pattern: '.*@example\\.com' })]);
    expect(validateSubmission(def, { email: 'ada@example.com' }).values.email).toBe('ada@example.com');
    expect(problemsOf(thrown(() => validateSubmission(def, { email: 'ada@other.org' })))[0]!.detail).toBe(
      'email does not match the required format; got "ada@other.org"',
    );
  });
});

describe('validateSubmission: linear time (issue #11: one pattern stalled the platform)', () => {
  const within = (ms: number, run: () => void): void => {
    const started = performance.now();
    run();
    expect(performance.now() - started).toBeLessThan(ms);
  };

  it.each(['(a+)+', '(a|a)*', '(a|aa)+b', '(\\w+\\s?)+$'])('checks a catastrophic-backtracking pattern %s against a long near-miss at once', (pattern) => {
    const def = form([field('code', 'text', { pattern, maxLength: 100_000 })]);
    expect(checkFormDefinition(def)).toBe(def);
    for (const value of [`${'a'.repeat(30)}!`, `${'a'.repeat(99_999)}!`]) {
      within(2_000, () => expect(pointersOf(thrown(() => validateSubmission(def, { code: value })))).toEqual(['/code']));
    }
  });

  it('checks a long near-miss e-mail address in linear time', () => {
    // Quadratic for a backtracking engine: every split of the domain before a final "@".
    const def = form([field('email', 'email', { maxLength: 100_000 })]);
    within(2_000, () => expect(pointersOf(thrown(() => validateSubmission(def, { email: `a@${'.'.repeat(99_990)}@` })))).toEqual(['/email']));
  });

  it('refuses, without crashing, a stored pattern that RE2 cannot compile (defined before patterns were checked)', () => {
    const def = form([field('code', 'text', { pattern: '(?=a)a' })]);
    expect(problemsOf(thrown(() => validateSubmission(def, { code: 'a' })))[0]!.detail).toMatch(/^code cannot be checked/);
  });
});

describe('validateSubmission: unknown fields and reporting', () => {
  const def = form(
    [field('name', 'text', { required: true }), field('email', 'email', { required: true }), field('kind', 'enum', { options: ['A'] })],
    { honeypotField: 'website' },
  );

  it('refuses fields the form does not declare, with escaped JSON pointers', () => {
    const error = thrown(() => validateSubmission(def, { name: 'Ada', email: 'ada@example.com', extra: 'x', 'a/b~c': 'y' }));
    expect(problemsOf(error)).toEqual([
      { pointer: '/extra', detail: '"extra" is not a field of form contact' },
      { pointer: '/a~1b~0c', detail: '"a/b~c" is not a field of form contact' },
    ]);
  });

  it('names every bad field at once, in a 422 SvcError', () => {
    const error = thrown(() => validateSubmission(def, { email: 'nope', kind: 'B', bogus: '1' }));
    expect(error).toBeInstanceOf(SvcError);
    expect(pointersOf(error)).toEqual(['/name', '/email', '/kind', '/bogus']);
    expect(error.message).toMatch(/^Form contact has 4 invalid field\(s\): /);
    for (const part of ['name is required', 'email must be a valid e-mail address', 'kind must be one of A', '"bogus" is not a field']) {
      expect(error.message).toContain(part);
    }
    expect(error.extensions.title).toBe('Validation Failed');
  });

  it('does not treat the honeypot field as unknown', () => {
    expect(validateSubmission(def, { name: 'Ada', email: 'ada@example.com', website: '' })).toEqual({
      values: { name: 'Ada', email: 'ada@example.com' },
      spam: false,
    });
  });
});

describe('validateSubmission: honeypot', () => {
  const def = form([field('name', 'text', { required: true })], { honeypotField: 'website' });

  it('marks a submission with a filled-in honeypot as spam, without returning the trap value', () => {
    expect(validateSubmission(def, { name: 'Bot', website: 'http://spam.example' })).toEqual({ values: { name: 'Bot' }, spam: true });
  });

  it.each([
    ['absent', {}, false],
    ['empty', { website: '' }, false],
    ['whitespace', { website: '   ' }, false],
    ['null', { website: null }, false],
    ['a non-string value', { website: 1 }, true],
  ])('honeypot %s -> spam %s', (_label, trap, spam) => {
    expect(validateSubmission(def, { name: 'Ada', ...trap }).spam).toBe(spam);
  });

  it('never reports spam when the form has no honeypot (and the field is then unknown)', () => {
    const plain = form([field('name', 'text', { required: true })]);
    expect(validateSubmission(plain, { name: 'Ada' }).spam).toBe(false);
    expect(pointersOf(thrown(() => validateSubmission(plain, { name: 'Ada', website: 'x' })))).toEqual(['/website']);
  });
});

describe('checkFormDefinition', () => {
  const good = (): FormDefinition =>
    form(
      [
        field('name', 'text', { required: true, maxLength: 100 }),
        field('email', 'email', { required: true }),
        field('kind', 'enum', { options: ['A', 'B'] }),
        field('zip', 'text', { pattern: '[0-9]{5}' }),
      ],
      { honeypotField: 'website', webhookUrl: 'https://hooks.example.com/forms' },
    );

  it('returns a valid definition unchanged', () => {
    const def = good();
    expect(checkFormDefinition(def)).toBe(def);
    expect(checkFormDefinition({ ...def, webhookUrl: 'http://127.0.0.1:9000/hook' })).toBeTruthy();
  });

  it.each(['Contact', 'contact form', '-contact', 'contact_form', '', 'a'.repeat(65)])('refuses the formKey %j', (formKey) => {
    const error = thrown(() => checkFormDefinition({ ...good(), formKey }));
    expect(problemsOf(error)).toEqual([
      { pointer: '/formKey', detail: `must be lower-case letters, digits and dashes; got ${JSON.stringify(formKey)}` },
    ]);
  });

  it('refuses a definition without fields', () => {
    expect(problemsOf(thrown(() => checkFormDefinition({ ...good(), fields: [] })))).toEqual([
      { pointer: '/fields', detail: 'must declare at least one field' },
    ]);
  });

  it('refuses duplicate field names, pointing at the duplicate', () => {
    const def = form([field('email', 'email'), field('name', 'text'), field('email', 'text')]);
    expect(problemsOf(thrown(() => checkFormDefinition(def)))).toEqual([{ pointer: '/fields/2/name', detail: 'duplicates field "email"' }]);
  });

  it('refuses field names that are not identifiers', () => {
    const def = form([field('first name', 'text'), field('1st', 'text')]);
    expect(pointersOf(thrown(() => checkFormDefinition(def)))).toEqual(['/fields/0/name', '/fields/1/name']);
  });

  it('refuses an enum without options', () => {
    const def = form([field('name', 'text'), field('kind', 'enum'), field('other', 'enum', { options: [] })]);
    expect(problemsOf(thrown(() => checkFormDefinition(def)))).toEqual([
      { pointer: '/fields/1/options', detail: 'enum fields need at least one option' },
      { pointer: '/fields/2/options', detail: 'enum fields need at least one option' },
    ]);
  });

  it('refuses an unknown field type', () => {
    const def = form([{ name: 'x', type: 'number' as FormField['type'], required: false }]);
    expect(pointersOf(thrown(() => checkFormDefinition(def)))).toEqual(['/fields/0/type']);
  });

  it('refuses an invalid regular expression', () => {
    const def = form([field('zip', 'text', { pattern: '[0-9' }), field('ok', 'text', { pattern: '(a|b)+' })]);
    expect(problemsOf(thrown(() => checkFormDefinition(def)))).toEqual([
      { pointer: '/fields/0/pattern', detail: expect.stringContaining('is not a valid regular expression (RE2 syntax: no lookaround or backreferences): "[0-9"') },
    ]);
  });

  it.each([
    ['a lookahead', '(?=a)a+'],
    ['a backreference', '(a)\\1'],
    ['a repeat count over 1000', 'a{1001}'],
    ['nested repeats over 1000', '(a{100}){100}'],
  ])('refuses %s, which RE2 cannot run in linear time', (_label, pattern) => {
    const def = form([field('code', 'text', { pattern })]);
    expect(problemsOf(thrown(() => checkFormDefinition(def)))[0]!.pointer).toBe('/fields/0/pattern');
  });

  it('refuses a pattern longer than 500 characters', () => {
    const def = form([field('code', 'text', { pattern: 'a'.repeat(501) })]);
    expect(problemsOf(thrown(() => checkFormDefinition(def)))).toEqual([{ pointer: '/fields/0/pattern', detail: 'must be at most 500 characters; got 501' }]);
  });

  it.each([0, -1, 1.5, 100_001])('refuses maxLength %p', (maxLength) => {
    const def = form([field('name', 'text', { maxLength })]);
    expect(pointersOf(thrown(() => checkFormDefinition(def)))).toEqual(['/fields/0/maxLength']);
  });

  it('refuses a honeypot that collides with a real field', () => {
    const def = { ...good(), honeypotField: 'email' };
    expect(problemsOf(thrown(() => checkFormDefinition(def)))).toEqual([
      { pointer: '/honeypotField', detail: 'must not be one of the real fields' },
    ]);
  });

  it.each(['ftp://hooks.example.com', 'hooks.example.com/x', 'javascript:alert(1)', ''])('refuses the webhookUrl %j', (webhookUrl) => {
    const error = thrown(() => checkFormDefinition({ ...good(), webhookUrl }));
    expect(problemsOf(error)).toEqual([{ pointer: '/webhookUrl', detail: `must be an http(s) URL; got ${JSON.stringify(webhookUrl)}` }]);
  });

  it('names every problem of a broken definition at once', () => {
    const def: FormDefinition = {
      formKey: 'Bad Key',
      name: 'x',
      fields: [field('a', 'enum'), field('a', 'text', { pattern: '(' })],
      honeypotField: 'a',
      webhookUrl: 'mailto:x@example.com',
    };
    const error = thrown(() => checkFormDefinition(def));
    expect(pointersOf(error)).toEqual(['/formKey', '/fields/0/options', '/fields/1/name', '/fields/1/pattern', '/honeypotField', '/webhookUrl']);
    expect(error.message).toMatch(/^Validation failed: \/formKey must be lower-case/);
  });
});
