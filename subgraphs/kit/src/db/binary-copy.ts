/**
 * Rows in PostgreSQL's binary COPY format (the server parses nothing: a uuid is its 16 bytes, a
 * timestamp its microseconds), written into one growing buffer and handed on in chunks. Used for
 * bulk loads where parsing text on the server cost as much as storing the row. The format (header, then each row
 * as a field count and length-prefixed fields, then -1), as PostgreSQL's COPY page describes
 * under "Binary Format".
 *
 * pg-copy-streams-binary does the same through one object stream step per row and per field,
 * several times slower than writing the buffer directly, which is what a bulk load is for.
 */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** Milliseconds from the Unix epoch to PostgreSQL's (2000-01-01 UTC). */
const PG_EPOCH_MS = 946_684_800_000;
const TWO_32 = 4_294_967_296;

export class BinaryCopyRows {
  private buf = Buffer.allocUnsafe(1 << 20);
  private at = 0;

  constructor() {
    this.reserve(SIGNATURE.length + 8);
    SIGNATURE.copy(this.buf, 0);
    this.buf.fill(0, SIGNATURE.length, SIGNATURE.length + 8); // flags, header extension length
    this.at = SIGNATURE.length + 8;
  }

  private reserve(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + bytes));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }

  /** Bytes written so far. */
  get size(): number {
    return this.at;
  }

  /** Starts a row of `fields` fields. */
  row(fields: number): this {
    this.reserve(2);
    this.at = this.buf.writeInt16BE(fields, this.at);
    return this;
  }

  /** A field given as its bytes already (a text's UTF-8, a uuid's 16 bytes). */
  bytes(value: Uint8Array): this {
    this.reserve(4 + value.length);
    this.at = this.buf.writeInt32BE(value.length, this.at);
    this.buf.set(value, this.at);
    this.at += value.length;
    return this;
  }

  /** A null field. */
  null(): this {
    this.reserve(4);
    this.at = this.buf.writeInt32BE(-1, this.at);
    return this;
  }

  /** A text (or varchar) field. */
  text(value: string): this {
    const length = Buffer.byteLength(value);
    this.reserve(4 + length);
    this.at = this.buf.writeInt32BE(length, this.at);
    this.at += this.buf.write(value, this.at);
    return this;
  }

  /** A jsonb field from its JSON text (jsonb's binary form is a version byte, 1, then the text). */
  jsonb(json: string): this {
    const length = Buffer.byteLength(json);
    this.reserve(5 + length);
    this.at = this.buf.writeInt32BE(length + 1, this.at);
    this.at = this.buf.writeUInt8(1, this.at);
    this.at += this.buf.write(json, this.at);
    return this;
  }

  int4(value: number): this {
    this.reserve(8);
    this.at = this.buf.writeInt32BE(4, this.at);
    this.at = this.buf.writeInt32BE(value, this.at);
    return this;
  }

  float8(value: number): this {
    this.reserve(12);
    this.at = this.buf.writeInt32BE(8, this.at);
    this.at = this.buf.writeDoubleBE(value, this.at);
    return this;
  }

  /** A timestamptz from epoch milliseconds (whole milliseconds: exact in microseconds). */
  timestamptz(ms: number): this {
    const us = (ms - PG_EPOCH_MS) * 1000;
    const high = Math.floor(us / TWO_32);
    this.reserve(12);
    this.at = this.buf.writeInt32BE(8, this.at);
    this.at = this.buf.writeInt32BE(high, this.at);
    this.at = this.buf.writeUInt32BE(us - high * TWO_32, this.at);
    return this;
  }

  /** What was written since the last take, as a copy of its own (the buffer is reused). */
  take(): Buffer {
    const out = Buffer.from(this.buf.subarray(0, this.at));
    this.at = 0;
    return out;
  }

  /** The rest, with the end-of-data marker: the last chunk of the copy. */
  end(): Buffer {
    this.reserve(2);
    this.at = this.buf.writeInt16BE(-1, this.at);
    return this.take();
  }
}

/** A uuid's 16 bytes, for `BinaryCopyRows.bytes`. */
export function uuidBytes(uuid: string): Buffer {
  const hex = uuid.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new TypeError(`not a uuid: ${JSON.stringify(uuid)}`);
  return Buffer.from(hex, 'hex');
}
