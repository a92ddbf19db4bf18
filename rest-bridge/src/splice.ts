/**
 * Passing a router answer on without parsing it. Most routes answer with the one root field of
 * their operation in their service's envelope (`{code, message, data: <field>}`, ...); the
 * field's text is placed between the envelope's two halves instead of being parsed into objects
 * and serialised again, which was most of the bridge's CPU for a list of 50 actions.
 *
 * A GraphQL response's top level holds `errors`, `data` and `extensions` only (GraphQL over HTTP).
 * For an operation that selects one root field, an answer that starts `{"data":{"<field>":`, ends
 * `}}` and nowhere holds the text `"errors":` or `"extensions":` (a member of that name: in a
 * string the quotes would be escaped) is therefore exactly `{"data":{"<field>":<value>}}`, and the
 * text between is the value. Anything else (an error, an extension, or a value with a member of
 * either name) is parsed as before.
 */
import { Kind, parse, type OperationDefinitionNode } from 'graphql';

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The text of `data.<field>` when `body` is exactly `{"data":{"<field>":<value>}}` (whitespace after); otherwise undefined. */
export function rootFieldText(body: string, field: string): string | undefined {
  const prefix = `{"data":{${JSON.stringify(field)}:`;
  if (!body.startsWith(prefix)) return undefined;
  let end = body.length;
  while (end > 0 && isSpace(body.charCodeAt(end - 1))) end--;
  if (end - prefix.length < 3 || body.charCodeAt(end - 1) !== 0x7d || body.charCodeAt(end - 2) !== 0x7d) return undefined;
  if (body.includes('"errors":') || body.includes('"extensions":')) return undefined;
  return body.slice(prefix.length, end - 2);
}

/** Whether operation `name` of `document` selects `field` and nothing else at its root (no alias, fragment or directive). */
export function selectsOneRootField(document: string, name: string, field: string): boolean {
  const operation = parse(document).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === name);
  const selections = operation?.selectionSet.selections ?? [];
  const only = selections[0];
  return selections.length === 1 && only!.kind === Kind.FIELD && !only.alias && only.name.value === field && !only.directives?.length;
}

/** A serialised envelope around a hole: the text before the payload and after it. */
export interface EnvelopeHalves {
  before: string;
  after: string;
}

const HOLE = '\u0000svc-payload\u0000';

/** Splits the serialisation of `render(hole)` at the hole; undefined when the envelope does not hold its payload as one value. */
export function envelopeHalves(render: (payload: unknown) => unknown): EnvelopeHalves | undefined {
  const text = JSON.stringify(render(HOLE));
  const parts = text.split(JSON.stringify(HOLE));
  if (parts.length !== 2) return undefined;
  return { before: parts[0]!, after: parts[1]! };
}

/** The envelope around the payload's text. */
export function spliced(halves: EnvelopeHalves, payload: string): string {
  return halves.before + payload + halves.after;
}
