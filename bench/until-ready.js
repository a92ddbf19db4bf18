// Waiting for a service process the benchmark started to answer, for every benchmark that starts one.

/**
 * Polls `url` every 100 ms until it answers 2xx. Fails at once when `child` exits first, and
 * after `timeoutMs`; either error ends with the process's last output (`output()`).
 */
export async function untilReady(child, url, { label, output = () => '', timeoutMs = 120_000 }) {
  for (let waited = 0; waited < timeoutMs; waited += 100) {
    if (child.exitCode !== null) throw new Error(`${label} exited with ${child.exitCode}: ${output()}`);
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${label} was not ready within ${timeoutMs / 1000} s: ${output()}`);
}
