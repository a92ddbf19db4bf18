import { SvcError, type Agenda, type Logger, type Principal } from '@svc/kit';
import type { Action, ActionKind, ExecutionOutcome } from '../domain/action.js';
import { actionParamProblems } from '../domain/action-params.js';
import type { GraphCall } from '../service/graph-call.js';
import type { ActionStore } from '../store/action-store.js';
import { type AgendaJob, EXECUTE_APPROVED_ACTION, type WorkerSettings } from './analysis-queue.js';

/** An EXTERNAL action's hand-off (service/external-actions.ts): recorded with the action, its outcome follows the delivery. */
export interface HandOff {
  handOff(action: Action): Promise<ExecutionOutcome | undefined>;
  deliver(actionId: string): Promise<{ retryAt?: Date }>;
  overdue(graceMs: number): Promise<string[]>;
}

export interface ExecutorDeps {
  call: GraphCall;
  /** Mints a short-lived platform token for one piece of work. */
  mintToken(principal: Principal): Promise<string>;
  log: Logger;
  /** Attempts before an unreachable target counts as a failure. Default 5. */
  maxAttempts?: number;
}

interface Plan {
  operation: string;
  variables: Record<string, unknown>;
  /** Rights the service token gets: only what this change needs. */
  roles: Principal['roles'];
  tenants: string[];
  sites: string[];
  headers?: Record<string, string>;
  /** The target's answer, as recorded on the action. */
  outcome(data: Record<string, unknown>): Record<string, unknown>;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

function planOf(action: Action): Plan | undefined {
  const p = action.params;
  const key = action.id;
  const kind: ActionKind = action.kind;
  switch (kind) {
    case 'BUDGET_CHANGE':
      return {
        operation: 'InsightSetBudget',
        variables: { input: { agentCode: action.targetId, ...p }, idempotencyKey: key },
        // Admin of the action's tenant only: the gateway lets it set that tenant's own agents' budgets, nothing else.
        roles: ['admin'], tenants: [action.tenantId], sites: [],
        headers: { 'x-svc-tenant-id': action.tenantId },
        outcome: (d) => ({ budget: d.setBudget }),
      };
    case 'CONTENT_PUBLISH':
      return {
        operation: 'InsightPublishContent',
        variables: { id: action.targetId, version: p.version ?? null, idempotencyKey: key },
        roles: ['editor'], tenants: [], sites: [str(p.siteKey)],
        outcome: (d) => ({ content: d.publishContent }),
      };
    case 'CONTENT_RESTORE':
      // The version before the fall becomes a new version, published at once; the key makes a retry restore nothing twice.
      return {
        operation: 'InsightRestoreContentVersion',
        variables: { id: action.targetId, version: p.version ?? null, idempotencyKey: key },
        roles: ['editor'], tenants: [], sites: [str(p.siteKey)],
        outcome: (d) => ({ content: d.restoreContentVersion, restoredFrom: p.version ?? null }),
      };
    case 'EXTERNAL':
      return undefined; // handed off to the tenant's operator webhook (external-actions.ts), never a router mutation
    case 'CONTENT_DRAFT_UPDATE':
      return {
        operation: 'InsightUpdateContentDraft',
        variables: { id: action.targetId, input: p.input ?? {}, baseVersion: p.baseVersion ?? null, idempotencyKey: key },
        roles: ['editor'], tenants: [], sites: [str(p.siteKey)],
        outcome: (d) => ({ content: d.updateContentDraft }),
      };
    case 'CRAWL_TRIGGER':
      return {
        operation: 'InsightTriggerCrawlJob',
        variables: { jobId: action.targetId, idempotencyKey: key },
        roles: ['crawler'], tenants: [action.tenantId], sites: [],
        headers: { 'x-svc-tenant-id': action.tenantId },
        outcome: (d) => ({ execution: d.triggerCrawlJob }),
      };
    case 'CRAWL_SELECTOR_CHANGE':
      return {
        operation: 'InsightChangeCrawlSelectors',
        variables: { jobId: action.targetId, selectors: p.selectors ?? {}, idempotencyKey: key },
        roles: ['crawler'], tenants: [action.tenantId], sites: [],
        headers: { 'x-svc-tenant-id': action.tenantId },
        outcome: (d) => ({ job: d.changeCrawlSelectors }),
      };
  }
}

const within = (needed: string[], granted: readonly string[] | '*' | undefined) => (granted === '*' ? needed : needed.filter((x) => granted?.includes(x)));

/**
 * The rights the work runs with: what it needs, intersected with the tenants and sites the
 * approver held when deciding, so an approval can never do what its reviewer could not have
 * asked for. Undefined (with the reason) when the approver lacked one of them.
 */
export function grantsFor(action: Action, plan: Pick<Plan, 'tenants' | 'sites'>): { tenants: string[]; sites: string[] } | { refused: string } {
  const grants = action.decision?.reviewerGrants;
  if (!grants) return { refused: 'the action has no recorded reviewer grants' };
  const tenants = within(plan.tenants, grants.tenants);
  const sites = within(plan.sites, grants.sites);
  const missingTenant = plan.tenants.find((t) => !tenants.includes(t));
  if (missingTenant !== undefined) return { refused: `the approver does not hold tenant ${JSON.stringify(missingTenant)}` };
  const missingSite = plan.sites.find((x) => !sites.includes(x));
  if (missingSite !== undefined) return { refused: `the approver does not hold site ${JSON.stringify(missingSite)}` };
  return { tenants, sites };
}

/**
 * Carries an approved action out as one mutation through the router on its target subgraph,
 * under a service token (subject `svc:insight`, acting for the approver, with only the rights
 * the change needs), with the action id as the idempotency key the target honours: a retry
 * after a crash returns the first result instead of changing anything twice. A refusal by the
 * target is the outcome (EXECUTION_FAILED); an unreachable target is retried by the sweep
 * until `maxAttempts`, then recorded as failed.
 */
export function createActionExecutor(deps: ExecutorDeps) {
  const maxAttempts = deps.maxAttempts ?? 5;
  return async function execute(action: Action): Promise<ExecutionOutcome> {
    const problems = actionParamProblems(action.kind, action.params);
    if (problems.length) return { ok: false, detail: { error: `Not executed: bad parameters (${problems.join('; ')})`, code: 'BAD_USER_INPUT' } };
    const plan = planOf(action);
    if (!plan) return { ok: false, detail: { error: `${action.kind} actions are not executed through the router`, code: 'BAD_USER_INPUT' } };
    const grants = grantsFor(action, plan);
    if ('refused' in grants) {
      deps.log.warn({ actionId: action.id, kind: action.kind, reason: grants.refused }, 'an approved action was not executed');
      return { ok: false, detail: { error: `Not executed: ${grants.refused}`, code: 'FORBIDDEN' } };
    }
    const token = await deps.mintToken({ subject: 'svc:insight', actor: action.decision?.reviewerSubject ?? 'unknown', roles: plan.roles, tenants: grants.tenants, sites: grants.sites });
    try {
      const data = await deps.call(plan.operation, plan.variables, { authorization: `Bearer ${token}`, 'x-request-id': `action-${action.id}-${action.executionAttempts}`, ...plan.headers });
      return { ok: true, detail: plan.outcome(data) };
    } catch (error) {
      if (!(error instanceof SvcError)) throw error;
      if (error.code === 'UNAVAILABLE' && action.executionAttempts < maxAttempts) throw error;
      deps.log.warn({ actionId: action.id, kind: action.kind, code: error.code }, 'the target refused the action');
      return { ok: false, detail: { error: error.message, code: error.code } };
    }
  };
}

export interface ExecuteApprovedActionDeps {
  actions: ActionStore;
  /** Carries an action out through the router (createActionExecutor). */
  execute(action: Action): Promise<ExecutionOutcome>;
  /** EXTERNAL actions go to the tenant's operator webhook instead of `execute`. */
  external?: HandOff | undefined;
  settings: WorkerSettings;
  log: Logger;
}

/**
 * The `insight.execute-action` job: carries one approved action out, once (the store hands an
 * action to one execution at a time, and the outcome is recorded once), and records the outcome
 * on the action. An EXTERNAL action is handed off instead; its delivery records the outcome.
 * Call before agenda.start().
 */
export function defineExecuteApprovedAction(agenda: Agenda, deps: ExecuteApprovedActionDeps): void {
  const { actions, settings, log } = deps;

  async function executeOne(actionId: string): Promise<void> {
    const action = await actions.beginExecution(actionId);
    if (!action) return;
    const outcome = action.kind === 'EXTERNAL' && deps.external ? await deps.external.handOff(action) : await deps.execute(action);
    if (!outcome) return; // handed off: the delivery records the outcome
    const recorded = await actions.recordOutcome(actionId, outcome.ok ? 'EXECUTED' : 'EXECUTION_FAILED', outcome.detail);
    log.info({ actionId, kind: action.kind, target: action.targetId, ok: outcome.ok, attempt: action.executionAttempts }, recorded ? 'action executed' : 'action outcome already recorded');
  }

  agenda.define(EXECUTE_APPROVED_ACTION, async (job: AgendaJob<{ actionId: string }>) => executeOne(job.attrs.data.actionId), {
    concurrency: settings.concurrency,
    lockLimit: settings.concurrency,
    lockLifetime: settings.lockLifetimeMs,
  });
}
