import type { Action } from '../domain/action.js';
import type { Job, Step } from '../domain/job-records.js';
import type { Evidence as EvidenceRecord } from '../domain/report.js';
import type { ActionProposal, Evidence, InsightJob, JobStep } from './job-types.js';

/** Domain records as GraphQL objects. */
const iso = (d: Date | null) => (d ? d.toISOString() : null);

function evidenceView(e: EvidenceRecord): Evidence {
  const base: Evidence = { kind: e.kind, step: e.step, metric: null, labels: null, from: null, to: null, summary: null, url: null, title: null, excerpt: null, crawlItem: null, content: null, agent: null };
  switch (e.kind) {
    case 'METRIC': return { ...base, metric: e.metric, labels: e.labels, from: e.from, to: e.to, summary: e.summary };
    case 'FORECAST': return { ...base, metric: e.metric, labels: e.labels, summary: e.summary };
    case 'SIMULATION': return { ...base, metric: e.metric, summary: e.summary };
    case 'KNOWLEDGE': return { ...base, url: e.url, title: e.title, excerpt: e.excerpt, crawlItem: { id: e.crawlItemId } };
    case 'CONTENT': return { ...base, title: e.title, url: `${e.siteKey}/${e.slug}`, content: { id: e.contentId } };
    case 'BUDGET': return { ...base, summary: e.summary, agent: { code: e.agentCode } };
    case 'ANALYSIS': return { ...base, metric: e.metric, from: e.from, to: e.to, summary: e.summary };
  }
}

export function jobView(job: Job): InsightJob {
  const r = job.report;
  return {
    jobId: job.id,
    status: job.status,
    prompt: job.prompt,
    requesterId: job.requesterId,
    createdAt: job.createdAt.toISOString(),
    startedAt: iso(job.startedAt),
    finishedAt: iso(job.finishedAt),
    progress: { stepsDone: job.stepsDone, currentStep: job.currentStep },
    report: r
      ? {
          judgment: r.judgment,
          judgmentSource: r.judgmentSource,
          findings: r.findings,
          evidence: r.evidence.map(evidenceView),
          confidence: r.confidence.value,
          confidenceReason: r.confidence.reason,
          charts: r.charts as unknown as Record<string, unknown>[],
          segmentTables: r.segmentTables ?? [],
        }
      : null,
    error: job.error,
    tokens: job.tokens,
    costUsd: job.costUsd,
  };
}

export function stepView(s: Step): JobStep {
  return {
    seq: s.seq,
    kind: s.kind,
    title: s.title,
    detail: s.detail,
    toolName: s.toolName,
    toolArgs: s.toolArgs,
    result: s.kind === 'TOOL_RESULT' || s.kind === 'PLAN' ? s.result : null,
    resultSummary: s.resultSummary,
    status: s.status,
    startedAt: s.startedAt.toISOString(),
    durationMs: s.durationMs,
    tokens: s.tokens,
    costUsd: s.costUsd,
  };
}

export function actionView(a: Action): ActionProposal {
  const target = a.targetType === 'Agent' ? { code: a.targetId } : a.targetType === 'CrawlJob' ? { jobId: a.targetId } : a.targetType === 'External' ? { lever: a.targetId } : { id: a.targetId };
  return {
    actionId: a.id,
    jobId: a.jobId,
    kind: a.kind,
    title: a.title,
    rationale: a.rationale,
    targetType: a.targetType,
    targetId: a.targetId,
    targetName: a.targetName,
    targetGoneAt: a.targetGoneAt?.toISOString() ?? null,
    target: target as ActionProposal['target'],
    params: a.params,
    paramsHash: a.paramsHash,
    expectedImpact: a.expectedImpact ? { ...a.expectedImpact, method: a.expectedImpact.method ?? null, horizonDays: a.expectedImpact.horizonDays ?? null, unit: a.expectedImpact.unit ?? null } : null,
    undoable: a.undoable,
    undo: a.undo,
    finding: a.finding,
    status: a.status,
    proposedAt: a.proposedAt.toISOString(),
    expiresAt: a.expiresAt.toISOString(),
    decision: a.decision ? { ...a.decision, decidedAt: a.decision.decidedAt.toISOString() } : null,
    outcome: a.outcome,
    executedAt: iso(a.executedAt),
  };
}
