import { gateStep, keepMs, settleStep, type BackoffPolicy, type GateResult, type GateSettlement, type GateState, type MikroORM } from '@svc/kit';
import type { Row } from './rows.js';

/** Where the login throttle keeps its gates: the shared cache on Redis, or this table. */
export interface AttemptGates {
  attempt(key: string, policy: BackoffPolicy): Promise<GateResult>;
  settle(key: string, how: GateSettlement, policy: BackoffPolicy): Promise<void>;
}

/**
 * The login throttle's gates in PostgreSQL (`insight.login_throttle`), for when there is no
 * Redis: every instance on the database shares them. Each step locks its row, on the database's
 * clock, so concurrent attempts count one by one. Forgotten rows are swept as new keys arrive.
 */
export function createPgAttemptGates(orm: MikroORM): AttemptGates {
  const stateOf = (r: Row | undefined): GateState | undefined => (r ? { attempts: Number(r.attempts), nextAt: Number(r.next_ms) } : undefined);
  return {
    async attempt(key, policy) {
      return orm.em.fork().transactional(async (em) => {
        const [clock] = await em.execute<Row[]>('select floor(extract(epoch from clock_timestamp()) * 1000)::float8 as now_ms');
        const now = Number(clock!.now_ms);
        const inserted = await em.execute<Row[]>(
          `insert into insight.login_throttle (key, attempts, next_at, forget_at) values (?, 0, to_timestamp(0), to_timestamp(? / 1000.0))
           on conflict (key) do nothing returning key`,
          [key, now + policy.idleMs],
        );
        if (inserted.length) await em.execute(`delete from insight.login_throttle where key in (select key from insight.login_throttle where forget_at < clock_timestamp() limit 100)`);
        const [row] = await em.execute<Row[]>(
          `select attempts, extract(epoch from next_at) * 1000 as next_ms from insight.login_throttle where key = ? and forget_at > clock_timestamp() for update`,
          [key],
        );
        const { state, result } = gateStep(stateOf(row), now, policy);
        if (result.allowed) {
          await em.execute('update insight.login_throttle set attempts = ?, next_at = to_timestamp(? / 1000.0), forget_at = to_timestamp(? / 1000.0) where key = ?', [
            state.attempts, state.nextAt, now + keepMs(state, now, policy), key,
          ]);
        }
        return result;
      });
    },
    async settle(key, how, policy) {
      await orm.em.fork().transactional(async (em) => {
        const [row] = await em.execute<Row[]>(`select attempts, extract(epoch from next_at) * 1000 as next_ms from insight.login_throttle where key = ? for update`, [key]);
        const state = settleStep(stateOf(row), how, policy);
        if (state) await em.execute('update insight.login_throttle set attempts = ?, next_at = to_timestamp(? / 1000.0) where key = ?', [state.attempts, state.nextAt, key]);
        else await em.execute('delete from insight.login_throttle where key = ?', [key]);
      });
    },
  };
}
