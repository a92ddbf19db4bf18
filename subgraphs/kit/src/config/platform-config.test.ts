import { describe, expect, it } from '@jest/globals';
import { loadConfig } from './load-config.js';
import { databaseUrlOf, isEmbedded } from './platform-config.js';

describe('databaseUrlOf and isEmbedded', () => {
  it('is embedded with neither DATABASE_URL nor DB_HOST', () => {
    const c = loadConfig({});
    expect(isEmbedded(c)).toBe(true);
    expect(databaseUrlOf(c)).toBeUndefined();
  });

  it('prefers DATABASE_URL over DB_*', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://a@b/c', DB_HOST: 'ignored' });
    expect(isEmbedded(c)).toBe(false);
    expect(databaseUrlOf(c)).toBe('postgres://a@b/c');
  });

  it('builds a URL from DB_* with the password encoded', () => {
    const c = loadConfig({ DB_HOST: 'db.internal', DB_PORT: '6543', DB_NAME: 'svc prod', DB_USER: 'svc@app', DB_PASSWORD: 'p@ss:w/rd#%' });
    expect(isEmbedded(c)).toBe(false);
    const url = databaseUrlOf(c)!;
    expect(url).toBe('postgres://svc%40app:p%40ss%3Aw%2Frd%23%25@db.internal:6543/svc%20prod');
    const parsed = new URL(url);
    expect(decodeURIComponent(parsed.password)).toBe('p@ss:w/rd#%');
    expect(decodeURIComponent(parsed.username)).toBe('svc@app');
    expect(parsed.hostname).toBe('db.internal');
    expect(parsed.port).toBe('6543');
  });

  it('leaves the password out when DB_PASSWORD is empty', () => {
    expect(databaseUrlOf(loadConfig({ DB_HOST: 'db' }))).toBe('postgres://postgres@db:5432/svc');
  });
});
