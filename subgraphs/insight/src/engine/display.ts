/**
 * The catalog's words for what a person reads: a metric's display name ("Conversion rate" for
 * `conversion_rate`), a label's ("Channel") and a label value's ("Search ads"), as the tenant
 * declared them (`display` in a definition). The engine computes with names and writes its
 * sentences with them; `displayed` then puts the declared words in place of each name, and of
 * each `label=value`, so every sentence uses the same words and nothing is said twice in two
 * vocabularies. Undeclared names stay as they are; a question's own words, quoted, are left alone.
 */
import type { MetricDef } from './catalog.js';

export interface Display {
  /** Metric name → its display name. */
  metrics: Record<string, string>;
  /** Label → its display name. */
  labels: Record<string, string>;
  /** Label → value → the value's display name. */
  values: Record<string, Record<string, string>>;
}

/** The declared words of every metric of the catalog, merged (a label's words from the first metric that declares them); undefined when none are. */
export function displayOf(defs: Iterable<MetricDef>): Display | undefined {
  const out: Display = { metrics: {}, labels: {}, values: {} };
  let any = false;
  for (const def of defs) {
    const d = def.display;
    if (!d) continue;
    if (d.name) {
      out.metrics[def.name] = d.name;
      any = true;
    }
    for (const [label, name] of Object.entries(d.labels ?? {})) {
      out.labels[label] ??= name;
      any = true;
    }
    for (const [label, values] of Object.entries(d.values ?? {})) {
      const held = (out.values[label] ??= {});
      for (const [value, name] of Object.entries(values)) {
        held[value] ??= name;
        any = true;
      }
    }
  }
  return any ? out : undefined;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Text outside double quotes (the question's own words are quoted and kept). */
function outsideQuotes(text: string, replace: (part: string) => string): string {
  return text.split(/("[^"]*"|“[^”]*”)/).map((part, i) => (i % 2 === 1 ? part : replace(part))).join('');
}

/** A name that reads as a word already ("orders", "revenue") is left as it is: it also appears in counts ("1,204 orders") and plain sentences. */
const IDENTIFIER = /[_.:\-0-9]|[a-z][A-Z]/;

/**
 * `text` with each `label=value` of a label that has declared words written "Search ads
 * (channel)" (the value's words, else the value; the label's words, else the label), and each
 * metric name with declared words replaced by them, when the name is an identifier
 * (`conversion_rate`, `crawl.items`, `adSpend`) rather than a word; words that open a sentence
 * get a capital unless `sentence` is false (a chart's bar label).
 */
export function displayed(text: string, display: Display | undefined, options: { sentence?: boolean } = {}): string {
  const sentence = options.sentence ?? true;
  if (!display) return text;
  const end = '(?=[,;)}\\s]|\\.(?:\\s|$)|$)';
  const labelPatterns = [...new Set([...Object.keys(display.labels), ...Object.keys(display.values)])].map((label) => {
    // Declared values first (they may hold spaces), longest first; any other value as one token.
    const values = Object.keys(display.values[label] ?? {}).sort((a, b) => b.length - a.length).map(escape);
    const value = `(${[...values, '[^,;)}\\s]+'].join('|')})`;
    return { label, alone: new RegExp(`\\(${escape(label)}=${value}\\)`, 'g'), pattern: new RegExp(`(?<![\\w.])${escape(label)}=${value}${end}`, 'g') };
  });
  const metrics = Object.keys(display.metrics).filter((name) => IDENTIFIER.test(name)).sort((a, b) => b.length - a.length);
  const metricPattern = metrics.length ? new RegExp(`(?<![\\w.=])(${metrics.map(escape).join('|')})(?![\\w=]|\\.\\w)`, 'g') : undefined;
  return outsideQuotes(text, (part) => {
    let out = part;
    for (const { label, alone, pattern } of labelPatterns) {
      // Alone in parentheses (a driver's part: "ad_spend (channel=search)"), the value's words say it: "(search ads)".
      out = out.replace(alone, (whole: string, value: string) => {
        const words = display.values[label]?.[value];
        return words ? `(${words})` : display.labels[label] ? `(${value} ${display.labels[label]})` : whole;
      });
      out = out.replace(pattern, (whole: string, value: string) => {
        const words = display.values[label]?.[value];
        // A value of a label with no words of its own, or for it, keeps its name.
        return words || display.labels[label] ? `${words ?? value} (${display.labels[label] ?? label})` : whole;
      });
    }
    if (metricPattern) {
      out = out.replace(metricPattern, (name: string, _name: string, at: number, whole: string) => {
        const words = display.metrics[name] ?? name;
        // Words that open a sentence start with a capital ("conversion rate" → "Conversion rate fell …").
        return sentence && (at === 0 || /[.!?:]\s+$/.test(whole.slice(Math.max(0, at - 3), at))) ? words.charAt(0).toUpperCase() + words.slice(1) : words;
      });
    }
    return out;
  });
}
