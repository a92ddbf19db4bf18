import { describe, expect, it } from '@jest/globals';
import { errorKindOf, joinUrl, parseRetryAfter } from './upstream-http.js';

describe('upstream HTTP helpers', () => {
  it('appends a path to the base URL\'s path, keeping its query string', () => {
    expect(joinUrl('https://api.openai.com/v1/', '/embeddings')).toBe('https://api.openai.com/v1/embeddings');
    expect(joinUrl('https://x.openai.azure.com/openai/deployments/gpt-4o?api-version=2024-06-01', '/chat/completions')).toBe('https://x.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-06-01');
  });

  it('parses Retry-After as seconds, HTTP date or retry-after-ms', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(parseRetryAfter(new Headers({ 'retry-after': '1.5' }), now)).toBe(1500);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }), now)).toBe(30000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Tue, 31 Dec 2024 00:00:00 GMT' }), now)).toBe(0);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined();
  });

  it('keeps only the upstream error\'s identifiers, never its message (it may quote the prompt)', () => {
    expect(errorKindOf('{"error":{"type":"invalid_request_error","code":"context_length_exceeded","message":"Your prompt: secret plans"}}')).toBe('invalid_request_error/context_length_exceeded');
    expect(errorKindOf('{"type":"error","error":{"type":"overloaded_error","message":"b"}}')).toBe('overloaded_error');
    expect(errorKindOf('{"error":"echo: secret plans"}')).toBeUndefined();
    expect(errorKindOf('{"error":{"type":"has spaces: secret plans"}}')).toBeUndefined();
    expect(errorKindOf('plain secret plans')).toBeUndefined();
  });
});
