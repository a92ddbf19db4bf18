/** A row as a raw statement answers it: column name → value. */
export type Row = Record<string, unknown>;

/** A timestamp column (raw statements may answer text), or null. */
export const date = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(String(v)));

/** A jsonb column (raw statements may answer text). */
export const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;
