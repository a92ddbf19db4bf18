/**
 * True when an Accept header admits one of `offered` (exact, `type/*` or `*\/*`, q > 0).
 * A missing or empty header accepts anything.
 */
export function accepts(header: string | undefined, offered: readonly string[]): boolean {
  if (!header || !header.trim()) return true;
  return header.split(',').some((part) => {
    const [range, ...params] = part.trim().toLowerCase().split(';').map((s) => s.trim());
    const q = params.find((p) => p.startsWith('q='));
    if (q && Number(q.slice(2)) <= 0) return false;
    if (!range) return false;
    if (range === '*/*') return true;
    const [type, subtype] = range.split('/');
    return offered.some((o) => {
      const [ot, os] = o.split('/');
      return ot === type && (subtype === '*' || os === subtype);
    });
  });
}
