/**
 * The bridge path a dashboard request under `/api/` may reach: the same path, which must stay
 * under `/api/`. Refused (undefined): dot segments in any spelling (`..`, `%2e%2e`, `.%2E`, and
 * their double-encoded forms), encoded slashes or backslashes, backslashes, NUL, and anything
 * malformed. WHATWG URL resolution would otherwise turn `/api/%2e%2e/admin/v1/budgets` into
 * `/admin/v1/budgets`, a path of the bridge outside what the dashboard forwards.
 */
const DOT_SEGMENT = /^(\.|%2e){1,2}$/i;

export function bridgePathOf(rawUrl: string): string | undefined {
  const at = rawUrl.indexOf('?');
  const path = at < 0 ? rawUrl : rawUrl.slice(0, at);
  const search = at < 0 ? '' : rawUrl.slice(at);
  if (!path.startsWith('/api/')) return undefined;
  if (/%(2f|5c|00)/i.test(path) || /[\\\0]/.test(path)) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  if (/[\\\0]/.test(decoded)) return undefined;
  // Raw and once-decoded segments: `%252e%252e` decodes to `%2e%2e`, which a second decoder would resolve.
  if ([...path.split('/'), ...decoded.split('/')].some((segment) => DOT_SEGMENT.test(segment))) return undefined;
  const target = new URL(`${path}${search}`, 'http://bridge');
  if (!target.pathname.startsWith('/api/') || target.pathname !== path) return undefined;
  return `${target.pathname}${target.search}`;
}
