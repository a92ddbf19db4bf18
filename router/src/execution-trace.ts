/**
 * What the router keeps of one federated execution beyond what @apollo/gateway hands back: the
 * errors of entity fetches with where each fetch was (entity-error-paths.ts), the merged subgraph
 * data before shaping, and the errors shaping found. The gateway drops the latter whenever a
 * fetch failed, and answers them in `extensions.valueCompletion` otherwise (answer-errors.ts puts
 * both in `errors`).
 *
 * `computeResponse`, the gateway's result shaping, is a module export it reads at every call: it
 * is wrapped (around whichever walk is installed: the gateway's or result-shaping.ts's) to keep
 * its input and errors in the execution's trace. The trace lives in an AsyncLocalStorage store
 * opened per execution, so concurrent requests never see each other's.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import type { Logger } from '@svc/kit';

type Path = readonly (string | number)[];

/** One `_entities` fetch that answered errors. */
export interface EntityFetch {
  /** Its place in the client's answer, `@` for each list. */
  cursorPath: Path;
  representations: readonly unknown[];
  /** The error objects the subgraph answered (the gateway keeps each as its error's `originalError`). */
  errors: readonly object[];
}

export interface ExecutionTrace {
  fetches: EntityFetch[];
  /** The merged subgraph data before shaping (kept when an entity fetch had errors). */
  input?: unknown;
  /** What shaping reported (nulls where the schema forbids them), when it reported anything. */
  completionErrors?: readonly unknown[];
}

const executions = new AsyncLocalStorage<ExecutionTrace>();

/** Runs one execution with its own trace. */
export function tracedExecution<T>(run: () => Promise<T>): { trace: ExecutionTrace; result: Promise<T> } {
  const trace: ExecutionTrace = { fetches: [] };
  return { trace, result: executions.run(trace, run) };
}

/** The running execution's trace (undefined outside one). */
export function currentTrace(): ExecutionTrace | undefined {
  return executions.getStore();
}

type ComputeResponse = (args: { input: unknown }) => { errors?: readonly unknown[] };

/** `computeResponse` keeping its input (when an entity fetch had errors) and its errors in the execution's trace. */
export function tracingComputeResponse(original: ComputeResponse): ComputeResponse {
  return (args) => {
    const trace = executions.getStore();
    if (trace?.fetches.length) trace.input = args.input;
    const result = original(args);
    if (trace && result.errors?.length) trace.completionErrors = result.errors;
    return result;
  };
}

let installed: boolean | undefined;
const require = createRequire(import.meta.url);

/** Wraps the gateway's `computeResponse` once per process (after result-shaping.ts, if that is installed). */
export function installExecutionTrace(log: Logger): boolean {
  if (installed !== undefined) return installed;
  const version = (require('@apollo/gateway/package.json') as { version: string }).version;
  const shaping = require('@apollo/gateway/dist/resultShaping.js') as { computeResponse?: ComputeResponse };
  if (!/^2\.14\./.test(version) || typeof shaping.computeResponse !== 'function') {
    log.warn({ gatewayVersion: version }, 'execution trace not installed: written for @apollo/gateway 2.14; errors of entity fetches under a union keep the gateway\'s paths, and shaping errors after a failed fetch are dropped');
    return (installed = false);
  }
  shaping.computeResponse = tracingComputeResponse(shaping.computeResponse);
  return (installed = true);
}
