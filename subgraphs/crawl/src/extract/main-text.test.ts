import { describe, expect, it } from '@jest/globals';
import { contentFingerprint } from './content-change.js';
import { mainContent, mainText } from './main-text.js';

const article = (lang: string, ticker: string, mostRead: string) => `<html lang="${lang}"><body><nav>Home</nav><article><h1>Harbour reopens</h1>
  <p>The harbour authority confirmed the plan on Tuesday, and the ferries will run every hour from the new pier.</p>
  <div class="live-ticker">${ticker}</div>
  <p>Fishermen welcomed the decision, which ends a closure of three months for the northern quay.</p>
  <aside data-widget="most-read"><ul>${mostRead}</ul></aside></article></body></html>`;

describe('main content', () => {
  it('leaves out the elements a job declares volatile, and only them', () => {
    const { text } = mainContent(article('en', 'Ferry 12 boards at gate B', '<li>Storm hits coast</li>'), ['.live-ticker', 'aside[data-widget="most-read"]']);
    expect(text).toContain('The harbour authority confirmed the plan');
    expect(text).toContain('Fishermen welcomed the decision');
    expect(text).not.toContain('Ferry 12');
    expect(text).not.toContain('Storm hits coast');
    expect(mainText(article('en', 'Ferry 12 boards at gate B', ''))).toContain('Ferry 12 boards at gate B');
  });

  it('reads a page whose only change is inside a volatile element as unchanged', () => {
    const volatile = ['.live-ticker', 'aside[data-widget="most-read"]'];
    const before = mainContent(article('en', 'Ferry 12 boards at gate B', '<li>Storm hits coast</li>'), volatile);
    const after = mainContent(article('en', 'Ferry 14 delayed by fog', '<li>Market moves to square</li>'), volatile);
    expect(contentFingerprint(after.text, after.language)).toBe(contentFingerprint(before.text, before.language));
    const undeclared = [mainContent(article('en', 'Ferry 12 boards at gate B', '')), mainContent(article('en', 'Ferry 14 delayed by fog', ''))];
    expect(contentFingerprint(undeclared[1]!.text)).not.toBe(contentFingerprint(undeclared[0]!.text));
  });

  it('reads the language from <html lang> or Content-Language, else guesses it from the text', () => {
    expect(mainContent(article('de-AT', '', '')).language).toBe('de');
    expect(mainContent('<html><head><meta http-equiv="Content-Language" content="fr"></head><body><p>The harbour opens on Tuesday and the ferries run every hour.</p></body></html>').language).toBe('fr');
    expect(mainContent('<html><body><p>Die Fähren fahren künftig stündlich und die Fischer sind mit der Entscheidung für den Hafen zufrieden.</p></body></html>').language).toBe('de');
    expect(mainContent('<html lang="ja"><body><p>The harbour opens on Tuesday and the ferries run every hour for the town.</p></body></html>').language).toBe('en');
  });
});
