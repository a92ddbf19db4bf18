/**
 * How the local provider reads text: words (lower-cased letters and digits, an apostrophe inside
 * a word kept), content words (at least 2 letters, no stopword, not a pure number), keywords (the
 * most frequent content words, ties by first appearance), the first sentence, and the last user
 * message of a conversation.
 */
import { textOf, type ChatMessage } from '../domain/openai-types.js';

export const STOPWORDS = new Set(
  `a about above after again against all also am an and any are aren't as at be because been before being below between both but by
  can can't cannot could couldn't did didn't do does doesn't doing don't down during each either else etc even ever every few for
  from further get gets got had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his
  how how's however i i'd i'll i'm i've if in into is isn't it it's its itself just let let's like many may me might more most much
  must mustn't my myself need no nor not now of off on once one only or other ought our ours ourselves out over own please per
  rather same say says shall shan't she she'd she'll she's should shouldn't show so some such than that that's the their theirs them
  themselves then there there's these they they'd they'll they're they've this those though through thus to too under until up
  upon us use used using very via was wasn't we we'd we'll we're we've were weren't what what's when when's where where's whether
  which while who who's whom whose why why's will with within without won't would wouldn't yes yet you you'd you'll you're you've
  your yours yourself yourselves tell give make want know find`.split(/\s+/),
);

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;

export function wordsOf(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/’/g, "'"));
}

export const isContentWord = (w: string): boolean => w.length >= 2 && !STOPWORDS.has(w) && !/^\p{N}+$/u.test(w);

/** The `n` most frequent content words, ties by first appearance. */
export function topKeywords(text: string, n: number): string[] {
  const counts = new Map<string, number>();
  for (const w of wordsOf(text)) if (isContentWord(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts.entries()]
    .map(([word, count], order) => ({ word, count, order }))
    .sort((a, b) => b.count - a.count || a.order - b.order)
    .slice(0, n)
    .map((e) => e.word);
}

/** The first sentence (at most 40 words) without its final punctuation. */
export function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = /[.!?](?=\s|$)/.exec(flat);
  const sentence = end ? flat.slice(0, end.index) : flat;
  return stripEnd(sentence.split(' ').slice(0, 40).join(' '));
}

/** The text without trailing whitespace and punctuation. */
export const stripEnd = (text: string): string => text.replace(/[\s.!?:;,]+$/u, '');

/** At most `max` characters, an ellipsis marking a cut. */
export const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The text of the conversation's last user message ('' when there is none). */
export function lastUserText(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'user') return textOf(messages[i]!.content);
  return '';
}
