/**
 * The keys a JSON text repeats within one object (`{"svc":"all","svc":"cms"}` → `["svc"]`):
 * JSON.parse keeps the last silently, other readers the first or refuse the text.
 */
export function repeatedKeys(text: string): string[] {
  const repeated: string[] = [];
  const objects: (Set<string> | null)[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{') objects.push(new Set());
    else if (c === '[') objects.push(null);
    else if (c === '}' || c === ']') objects.pop();
    else if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      let next = end + 1;
      while (/\s/.test(text[next] ?? '')) next++;
      const keys = objects.at(-1);
      if (text[next] === ':' && keys) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (keys.has(key)) repeated.push(key);
        keys.add(key);
      }
      i = end;
    }
  }
  return repeated;
}
