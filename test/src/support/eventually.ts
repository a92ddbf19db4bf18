/** Polls until `check` returns a truthy value, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 15_000, what = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
