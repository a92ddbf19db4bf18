import { describe, expect, it } from '@jest/globals';
import { accepts } from './accept.js';

const JSON_ONLY = ['application/json'];
const CMS = ['application/json', 'application/problem+json'];

describe('accepts', () => {
  it('accepts anything when the header is missing or blank', () => {
    expect(accepts(undefined, JSON_ONLY)).toBe(true);
    expect(accepts('', JSON_ONLY)).toBe(true);
    expect(accepts('   ', JSON_ONLY)).toBe(true);
  });

  it('accepts an exact media type', () => {
    expect(accepts('application/json', JSON_ONLY)).toBe(true);
    expect(accepts('application/problem+json', CMS)).toBe(true);
    expect(accepts('application/problem+json', JSON_ONLY)).toBe(false);
  });

  it('ignores media type parameters other than q', () => {
    expect(accepts('application/json; charset=utf-8', JSON_ONLY)).toBe(true);
  });

  it('accepts a type wildcard of the right type only', () => {
    expect(accepts('application/*', JSON_ONLY)).toBe(true);
    expect(accepts('text/*', JSON_ONLY)).toBe(false);
  });

  it('accepts */*', () => {
    expect(accepts('*/*', JSON_ONLY)).toBe(true);
    expect(accepts('text/html, */*;q=0.1', JSON_ONLY)).toBe(true);
  });

  it('refuses media types other than the offered ones', () => {
    expect(accepts('text/html', JSON_ONLY)).toBe(false);
    expect(accepts('application/xml', JSON_ONLY)).toBe(false);
    expect(accepts('text/json', JSON_ONLY)).toBe(false);
    expect(accepts('application/jsonx', JSON_ONLY)).toBe(false);
  });

  it('refuses ranges with q=0 and accepts ranges with q > 0', () => {
    expect(accepts('application/json;q=0', JSON_ONLY)).toBe(false);
    expect(accepts('application/json; q=0.0', JSON_ONLY)).toBe(false);
    expect(accepts('*/*;q=0', JSON_ONLY)).toBe(false);
    expect(accepts('application/*;q=0', JSON_ONLY)).toBe(false);
    expect(accepts('application/json;q=0.001', JSON_ONLY)).toBe(true);
    expect(accepts('application/json;q=1', JSON_ONLY)).toBe(true);
  });

  it('accepts when any of several ranges matches', () => {
    expect(accepts('text/html, application/xhtml+xml, application/json;q=0.9', JSON_ONLY)).toBe(true);
    expect(accepts('text/html,application/xhtml+xml,application/xml;q=0.9', JSON_ONLY)).toBe(false);
    expect(accepts('text/html;q=0, application/json', JSON_ONLY)).toBe(true);
    expect(accepts(' , application/json', JSON_ONLY)).toBe(true);
  });

  it('is case-insensitive', () => {
    expect(accepts('Application/JSON', JSON_ONLY)).toBe(true);
    expect(accepts('APPLICATION/*', JSON_ONLY)).toBe(true);
    expect(accepts('application/json;Q=0', JSON_ONLY)).toBe(false);
  });

  it('lets a more specific q=0 range override a wildcard (RFC 9110 section 12.5.1)', () => {
    // "anything but JSON": JSON is explicitly not acceptable even though */* matches it.
    expect(accepts('application/json;q=0, */*', JSON_ONLY)).toBe(false);
    expect(accepts('*/*, application/json;q=0', JSON_ONLY)).toBe(false);
  });
});
