interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parse(header: string): MediaRange[] {
  return header.split(',').flatMap((part) => {
    const [range, ...params] = part.trim().toLowerCase().split(';').map((s) => s.trim());
    const [type, subtype] = (range ?? '').split('/');
    if (!type || !subtype) return [];
    const q = params.find((p) => p.startsWith('q='));
    return [{ type, subtype, q: q ? Number(q.slice(2)) : 1 }];
  });
}

/** 2 for an exact match, 1 for `type/*`, 0 for `*\/*`, -1 for no match. */
function specificity(range: MediaRange, type: string, subtype: string): number {
  if (range.type === type && range.subtype === subtype) return 2;
  if (range.type === type && range.subtype === '*') return 1;
  if (range.type === '*' && range.subtype === '*') return 0;
  return -1;
}

/**
 * True when an Accept header admits one of `offered`. The most specific range decides each
 * type's quality (RFC 9110 12.5.1), so `application/json;q=0, *\/*` refuses JSON.
 * A missing or empty header accepts anything.
 */
export function accepts(header: string | undefined, offered: readonly string[]): boolean {
  if (!header || !header.trim()) return true;
  // Clients send a handful of distinct headers: each is judged once per offer.
  const key = `${offered.join(',')}\n${header}`;
  let answer = decided.get(key);
  if (answer === undefined) {
    if (decided.size >= DECIDED) decided.clear();
    decided.set(key, (answer = judge(header, offered)));
  }
  return answer;
}

const DECIDED = 500;
const decided = new Map<string, boolean>();

function judge(header: string, offered: readonly string[]): boolean {
  const ranges = parse(header);
  return offered.some((media) => {
    const [type = '', subtype = ''] = media.toLowerCase().split('/');
    let best: MediaRange | undefined;
    let bestScore = -1;
    for (const range of ranges) {
      const score = specificity(range, type, subtype);
      if (score > bestScore) {
        best = range;
        bestScore = score;
      }
    }
    return !!best && best.q > 0;
  });
}
