import { describe, expect, it } from '@jest/globals';
import { isPoolWait, patientlyConnected } from './database.js';

const poolWait = () => Object.assign(new Error('timeout exceeded when trying to connect'), { name: 'DriverException' });

describe('patientlyConnected', () => {
  it('runs the work again while it fails only for want of a free connection', async () => {
    let calls = 0;
    const answer = await patientlyConnected(async () => {
      if (++calls < 3) throw poolWait();
      return 'read';
    }, Date.now() + 5_000);
    expect([answer, calls]).toEqual(['read', 3]);
  });

  it('fails at once on any other error, and on a pool wait once the deadline has passed', async () => {
    let calls = 0;
    await expect(patientlyConnected(async () => {
      calls++;
      throw new Error('relation "x" does not exist');
    }, Date.now() + 5_000)).rejects.toThrow('does not exist');
    expect(calls).toBe(1);
    const started = Date.now();
    await expect(patientlyConnected(async () => {
      throw poolWait();
    }, Date.now() + 300)).rejects.toThrow('timeout exceeded');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(isPoolWait(poolWait())).toBe(true);
    // A new connection whose start-up the server did not finish in time (the embedded database, busy with another session's transaction).
    expect(isPoolWait(new Error('Connection terminated due to connection timeout: Connection terminated unexpectedly'))).toBe(true);
    expect(isPoolWait(new Error('connect ECONNREFUSED 127.0.0.1:5432'))).toBe(false);
  });
});
