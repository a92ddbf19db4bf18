import { patientlyConnected, SvcError, type Logger } from '@svc/kit';
import { describeFailure, type FailureReason } from '../domain/job.js';
import type { Job, NewStep, Step } from '../domain/job-records.js';
import type { ProposedAction, Report } from '../domain/report.js';
import { TOOLS, toolNamed } from '../tools/agent-tools.js';
import { openAiTool, type ToolContext } from '../tools/tool.js';
import { composeReport, type ModelJudgment, type ToolOutcome } from '../report/compose-report.js';
import { outcomeOf } from '../report/composed.js';
import { BudgetRefusal, type ChatMessage, type ModelPort, type ToolCall } from './model.js';
import { asksAboutPages, planAnalysis, type Plan, type PlannedTask } from './planner.js';

/**
 * Runs one analysis job to its end, durably: every step is written before the next begins,
 * and a job resumed on another worker rebuilds its conversation from the written steps, so
 * a completed tool call is never made again and the job never gets a second report.
 *
 * Per planned task: the model is asked to call the task's tool (it fills the arguments; the
 * instruction spells them out) and the tool runs; its result step says in words what was
 * learned. Then the model may call further tools, and is asked for its judgment as JSON. The report is composed
 * from the tool results (see compose-report.ts).
 */

export interface JobStepWriter {
  steps(jobId: string): Promise<Step[]>;
  /** false: the job is no longer this worker's (or is final). */
  appendStep(jobId: string, seq: number, step: NewStep): Promise<boolean>;
  get(jobId: string): Promise<Job | undefined>;
  complete(jobId: string, report: Report, actions: readonly ProposedAction[], finalSeq: number): Promise<string[] | undefined>;
  end(jobId: string, status: 'FAILED' | 'CANCELLED', error: string, finalSeq: number): Promise<boolean>;
}

export interface AgentLimits {
  maxSteps: number;
  timeoutMs: number;
  /** Extra tool calls the model may make after the plan. */
  maxExtraCalls: number;
}

export interface RunDeps {
  store: JobStepWriter;
  /** This worker's name, shown in the job's status steps. */
  workerName: string;
  model: ModelPort;
  modelName: string;
  agentCode: string;
  /** The tools' context for this job (the requester's authority). */
  tools: (job: Job) => ToolContext;
  limits: AgentLimits;
  siteKey: (job: Job) => string;
  /** Called between steps so a long job keeps its lock. */
  heartbeat: () => Promise<void>;
  log: Logger;
  now?: () => number;
  /** How long the job's reads and writes may wait for a free database connection, ms. Default 120,000. */
  connectionWaitMs?: number;
}

class Stop extends Error {
  constructor(readonly reason: FailureReason | 'CANCELLED' | 'LOST') {
    super(typeof reason === 'string' ? reason : reason.kind);
  }
}

const SYSTEM = [
  'You are the analysis agent of a business platform. You answer a person\'s question about their business with evidence.',
  'Use the tools to read metrics, forecasts, what-if simulations, the crawled knowledge base, content and model budgets.',
  'Never state a number that no tool returned. Be concise and concrete.',
].join(' ');

const FINAL = 'Reply with your judgment as a json object {"judgment": string, "confidence": number between 0 and 1, "confidenceReason": string}, citing only numbers that appear in the tool outputs; or call a tool instead if one is still missing.';

const TOOL_OUTPUT_LIMIT = 6000;

function planText(plan: Plan): string {
  const subject = plan.target ? `Subject: ${plan.target}${plan.alsoMatched?.length ? ` (the question also matched ${plan.alsoMatched.join(', ')})` : ''}.\n` : '';
  return subject + plan.tasks.map((t, i) => `${i + 1}. ${t.tool}: ${t.why}`).join('\n');
}

function taskOf(step: Step): number | undefined {
  const r = step.result as { task?: unknown } | null;
  return step.kind !== 'TOOL_RESULT' && r && typeof r.task === 'number' ? r.task : undefined;
}

export async function runJob(job: Job, deps: RunDeps): Promise<void> {
  const { store, log } = deps;
  const now = deps.now ?? Date.now;
  const started = now();
  const patience = deps.connectionWaitMs ?? 120_000;
  const ctx = deps.tools(job);
  const written = await store.steps(job.id);
  let seq = written.length;
  const messages: ChatMessage[] = [{ role: 'system', content: SYSTEM }];

  /** Writes the next step; the same statement refuses when the job was cancelled, ended or taken over. */
  async function append(step: NewStep): Promise<Step> {
    if (seq >= deps.limits.maxSteps) throw new Stop({ kind: 'STEP_LIMIT', limit: deps.limits.maxSteps });
    if (now() - started > deps.limits.timeoutMs) throw new Stop({ kind: 'TIME_LIMIT', limitMs: deps.limits.timeoutMs });
    await deps.heartbeat();
    const startedAt = step.startedAt ?? new Date();
    // A job runs on a worker with nobody waiting on the line: a busy pool (the embedded database
    // runs one transaction at a time, an import's for a minute) slows it down, never fails it.
    if (!(await patientlyConnected(() => store.appendStep(job.id, seq + 1, { ...step, startedAt }), now() + patience))) {
      const latest = await store.get(job.id);
      throw new Stop(!latest || latest.status === 'CANCELLED' || latest.cancelRequested ? 'CANCELLED' : 'LOST');
    }
    seq++;
    const full: Step = { jobId: job.id, seq, detail: null, toolName: null, toolCallId: null, toolArgs: null, result: null, resultSummary: null, status: null, durationMs: null, tokens: null, costUsd: null, ...step, startedAt };
    written.push(full);
    return full;
  }

  /** One model call; `durationMs` is what the step records as time spent in the model. */
  async function chat(request: Omit<Parameters<ModelPort['chat']>[0], 'model' | 'messages'>, extra: ChatMessage[] = []) {
    const t0 = now();
    try {
      const answer = await deps.model.chat({ model: deps.modelName, messages: [...messages, ...extra], ...(job.piiStrict ? { svcllm_options: { piiStrict: true } } : {}), ...request }, job.tenantId);
      return { ...answer, durationMs: now() - t0 };
    } catch (error) {
      if (error instanceof BudgetRefusal) throw new Stop({ kind: 'BUDGET', agentCode: error.agentCode, message: error.message });
      if (error instanceof SvcError) throw new Stop({ kind: 'MODEL', message: error.message });
      throw error;
    }
  }

  const outcomes: ToolOutcome[] = [];
  let finalText: string | null = null;
  /** The model call that answered with the judgment instead of a tool: the REPORT step records its time and cost. */
  let finalCall: { durationMs: number; tokens: number | null; costUsd: number | null } | undefined;

  /** Runs a tool call (the model's arguments, else the plan's) and writes its result. */
  async function execute(call: ToolCall, fallback: Record<string, unknown> | undefined): Promise<void> {
    const tool = toolNamed(call.function.name);
    const t0 = now();
    let args: unknown;
    try {
      args = JSON.parse(call.function.arguments || '{}');
    } catch {
      args = undefined;
    }
    let parsed = (tool?.agentInput ?? tool?.input)?.safeParse(args);
    let note = '';
    if (tool && !parsed?.success && fallback) {
      parsed = (tool.agentInput ?? tool.input).safeParse(fallback);
      note = ' (the model\'s arguments were invalid; the plan\'s were used)';
    }
    let data: unknown;
    let summary: string;
    if (!tool) {
      data = { error: `unknown tool ${call.function.name}` };
      summary = `There is no tool named ${call.function.name}.`;
    } else if (!parsed?.success) {
      data = { error: parsed?.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
      summary = `Invalid arguments for ${tool.name}: ${(data as { error: string }).error}`;
    } else {
      try {
        const input = parsed.data;
        const result = await patientlyConnected(() => tool.run(ctx, input), now() + patience);
        data = result.data;
        summary = result.summary + note;
      } catch (error) {
        if (!(error instanceof SvcError)) throw error;
        data = { error: error.message };
        summary = `${tool.name} failed: ${error.message}`;
      }
    }
    await append({ kind: 'TOOL_RESULT', title: `Result of ${call.function.name}`, toolName: call.function.name, toolCallId: call.id, result: data, resultSummary: summary, durationMs: now() - t0 });
    messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(data).slice(0, TOOL_OUTPUT_LIMIT) });
    const outcome = outcomeOf(seq, call.function.name, data, summary);
    if (outcome) outcomes.push(outcome);
  }

  try {
    const resumed = written.length > 0;
    await append({ kind: 'STATUS', title: resumed ? `Resumed on ${deps.workerName} after step ${seq}` : `Running on ${deps.workerName}`, status: 'RUNNING', detail: `attempt ${job.attempts}` });
    // The plan: written once; a resumed job reads it back.
    let plan = written.find((s) => s.kind === 'PLAN')?.result as Plan | undefined;
    if (!plan) {
      const catalog = ctx.analysis ? await ctx.analysis.catalog(ctx.caller) : [];
      plan = planAnalysis(job.prompt, catalog, { siteKey: deps.siteKey(job), now: now(), crossService: ctx.graph !== undefined });
      await append({ kind: 'PLAN', title: `Plan: ${plan.tasks.length} steps`, detail: planText(plan), result: plan });
    }
    messages.push({ role: 'user', content: `${job.prompt}\n\nPlan:\n${planText(plan)}` });

    // What a resumed job already has, by task: a result belongs to the call written before it.
    const calls = new Map<number, Step>();
    const results = new Map<number, Step>();
    let lastTask: number | undefined;
    for (const s of written) {
      const task = taskOf(s);
      if (s.kind === 'TOOL_CALL' && task !== undefined) calls.set((lastTask = task), s);
      if (s.kind === 'TOOL_RESULT' && lastTask !== undefined) results.set(lastTask, s);
    }

    const runTask = async (index: number, planned: PlannedTask | undefined, toolChoice: Parameters<ModelPort['chat']>[0]['tool_choice'], prompt: ChatMessage | undefined): Promise<boolean> => {
      if (prompt) messages.push(prompt);
      let call = calls.get(index);
      if (!call) {
        const answer = await chat({ tools: planned ? [openAiTool(toolNamed(planned.tool)!)] : TOOLS.map(openAiTool), tool_choice: toolChoice });
        const requested = answer.toolCalls[0];
        if (!requested) {
          if (!planned) {
            messages.push({ role: 'assistant', content: answer.content });
            finalText = answer.content;
            finalCall = answer;
            return false;
          }
        }
        // The call's id is the task's own: models may repeat ids, and a resumed job must tell its calls apart.
        const toolCall: ToolCall = { id: `call_${index}`, type: 'function', function: requested?.function ?? { name: planned!.tool, arguments: JSON.stringify(planned!.args) } };
        let args: Record<string, unknown> = {};
        try {
          args = JSON.parse(toolCall.function.arguments || '{}') as Record<string, unknown>;
        } catch {
          args = { unparsable: toolCall.function.arguments.slice(0, 500) };
        }
        call = await append({ kind: 'TOOL_CALL', title: `Call ${toolCall.function.name}`, detail: planned?.why ?? 'the model asked for it', toolName: toolCall.function.name, toolCallId: toolCall.id, toolArgs: args, result: { task: index }, tokens: answer.tokens, costUsd: answer.costUsd, durationMs: answer.durationMs });
      }
      const toolCall: ToolCall = { id: call.toolCallId!, type: 'function', function: { name: call.toolName!, arguments: JSON.stringify(call.toolArgs ?? {}) } };
      messages.push({ role: 'assistant', content: null, tool_calls: [toolCall] });
      const result = results.get(index);
      if (result) {
        messages.push({ role: 'tool', tool_call_id: toolCall.id, content: JSON.stringify(result.result).slice(0, TOOL_OUTPUT_LIMIT) });
        const outcome = outcomeOf(result.seq, toolCall.function.name, result.result, result.resultSummary ?? '');
        if (outcome) outcomes.push(outcome);
      } else {
        await execute(toolCall, planned?.args);
      }
      // What was learned is the tool's own summary on its result step; a resumed job written by an
      // earlier version may hold the model's observation, which the conversation keeps.
      const obs = written.find((s) => s.kind === 'OBSERVATION' && taskOf(s) === index);
      if (planned && obs) messages.push({ role: 'assistant', content: obs.detail ?? '' });
      return true;
    };

    for (let i = 0; i < plan.tasks.length; i++) {
      const t = plan.tasks[i]!;
      await runTask(i, t, { type: 'function', function: { name: t.tool } }, { role: 'user', content: `Step ${i + 1} of ${plan.tasks.length}: ${t.instruction}` });
    }
    // The model's own turn: more tools if it wants them, then its judgment.
    messages.push({ role: 'user', content: FINAL });
    for (let k = 0; k < deps.limits.maxExtraCalls; k++) {
      const more = await runTask(plan.tasks.length + k, undefined, 'auto', undefined);
      if (!more) break;
    }
    if (finalText === null) {
      const answer = await chat({ response_format: { type: 'json_object' } });
      finalText = answer.content;
      finalCall = answer;
    }
    let judgment: ModelJudgment | undefined;
    try {
      judgment = finalText ? (JSON.parse(finalText) as ModelJudgment) : undefined;
    } catch {
      judgment = undefined;
    }
    const contentAsked = plan.tasks.some((t) => t.tool === 'read_content') && asksAboutPages(job.prompt);
    const { report, actions, ungrounded } = composeReport({ prompt: job.prompt, outcomes, model: judgment, contentAsked });
    const why = report.judgmentSource === 'model' ? 'the model\'s judgment' : ungrounded.length ? `composed: the model cited figures no tool returned (${ungrounded.slice(0, 5).join(', ')})` : 'composed from the findings';
    await append({ kind: 'REPORT', title: `Report: ${report.findings.length} findings, ${actions.length} proposed actions`, detail: `${report.judgment}\n\n(${why})`, result: { judgmentSource: report.judgmentSource }, durationMs: finalCall?.durationMs ?? 0, tokens: finalCall?.tokens ?? null, costUsd: finalCall?.costUsd ?? null });
    const ids = await store.complete(job.id, report, actions, seq + 1);
    if (!ids) log.info({ jobId: job.id }, 'job was cancelled or taken over before its report was stored');
  } catch (error) {
    if (error instanceof Stop) {
      if (error.reason === 'LOST') return log.warn({ jobId: job.id }, 'another worker owns this job now; stopping here');
      if (error.reason === 'CANCELLED') {
        await store.end(job.id, 'CANCELLED', 'Cancelled on request', seq + 1);
        return;
      }
      const message = describeFailure(error.reason);
      log.info({ jobId: job.id, reason: error.reason.kind }, 'analysis job failed');
      await store.end(job.id, 'FAILED', message, seq + 1);
      return;
    }
    log.error({ err: error, jobId: job.id }, 'analysis job failed unexpectedly');
    await store.end(job.id, 'FAILED', describeFailure({ kind: 'INTERNAL', message: 'an internal error stopped the analysis (the logs have its request id)' }), seq + 1);
  }
}
