import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeGatewayConfig } from './support/fake-llm-upstream.js';
import { eventually } from './support/eventually.js';
import { call } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';
import { forcedTool, spelledArguments, startScriptedModel, toolResults, type Script } from './support/scripted-model.js';

/**
 * A real model behind the analysis (LLM_MODEL_NAME through the gateway), played by a scripted
 * OpenAI-compatible provider: the model chooses tools and writes the narrative, the engine does
 * the arithmetic, and whatever the model does wrong, the job degrades or fails with a clear
 * error, and never hangs.
 */

let platform: TestPlatform;
let model: Awaited<ReturnType<typeof startScriptedModel>>;
let analyst: string;
const PROMPT = 'Why did revenue drop last week?';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A model that does what it is asked: the planned tool with the spelled arguments, then a judgment quoting the engine. */
const wellBehaved: Script = (r) => {
  const tool = forcedTool(r);
  if (tool) return { toolCall: { name: tool, arguments: spelledArguments(r) } };
  // Asked for its judgment (the free turn after the plan, or the JSON turn): it quotes the engine's answer.
  const answer = toolResults(r).map((t) => /"answer":"((?:[^"\\]|\\.)*)"/.exec(t)?.[1]).find((a) => a !== undefined);
  return { content: JSON.stringify({ judgment: `In short: ${answer ? JSON.parse(`"${answer}"`) : 'no answer'}`, confidence: 0.7, confidenceReason: 'the engine measured it' }) };
};
/** Whether the model is being asked for its judgment rather than a planned tool. */
const judging = (r: Parameters<Script>[0]) => forcedTool(r) === undefined;

let runs = 0;
async function run(script: Script) {
  model.set(script);
  // Each run asks in other words, so the gateway's response cache cannot answer for the model.
  runs += 1;
  const created = await call(`${platform.bridge}/api/v1/insight/jobs`, { headers: bearer(analyst), json: { prompt: `${PROMPT} (run ${runs})` } });
  expect(created.status).toBe(202);
  const started = Date.now();
  const job = await eventually(async () => {
    const reply = await call(`${platform.bridge}/api/v1/insight/jobs/${created.body.data.jobId}`, { headers: bearer(analyst) });
    return ['COMPLETED', 'FAILED'].includes(reply.body.data.status) ? reply.body.data : undefined;
  }, 60_000, 'the job to end');
  return { job, seconds: (Date.now() - started) / 1000 };
}

beforeAll(async () => {
  model = await startScriptedModel(wellBehaved);
  const config = await writeGatewayConfig({
    providers: [{ name: 'scripted', kind: 'openai-compatible', baseUrl: model.url }],
    models: [{ name: 'scripted-model', provider: 'scripted', inputPerMTok: 1, outputPerMTok: 2 }],
    aliases: { 'auto-route': ['scripted-model'], 'fast-track': ['scripted-model'], 'deep-reasoning': ['scripted-model'] },
  });
  platform = await startTestPlatform({ SVCLLM_CONFIG: config, LLM_MODEL_NAME: 'scripted-model' });
  analyst = await platform.token({ subject: 'ana', roles: ['analyst'], tenants: ['demo'], sites: ['demo'] });
});
afterAll(async () => {
  await platform?.close();
  await model?.close();
});

describe('the analysis with a real model', () => {
  it('lets a model that calls tools well write the judgment, on the engine\'s figures', async () => {
    const { job } = await run(wellBehaved);
    expect(job.status).toBe('COMPLETED');
    expect(job.report.judgmentSource).toBe('model');
    expect(job.report.judgment).toMatch(/^In short: revenue /);
    const analysis = job.steps.find((s: { kind: string; toolName: string }) => s.kind === 'TOOL_RESULT' && s.toolName === 'analyse_change');
    expect(analysis.result.finding.subject.name).toBe('revenue');
    // The model was offered the tools and asked for its judgment as JSON through the gateway.
    expect(model.requests.some((r) => r.tools?.some((t) => t.type === 'function' && t.function.name === 'analyse_change'))).toBe(true);
  });

  it('survives unknown tools and bad arguments: the plan\'s arguments are used, an unknown tool is a result that says so', async () => {
    const { job } = await run((r) => {
      const tool = forcedTool(r);
      if (tool) return { toolCall: { name: tool, arguments: '{"question": 42, "name": ["x"]}' } };
      if (r.tool_choice === 'auto' && toolResults(r).length < 8) return { toolCall: { name: 'drop_database', arguments: '{}' } };
      return wellBehaved(r);
    });
    expect(job.status).toBe('COMPLETED');
    const summaries = job.steps.map((s: { resultSummary: string | null }) => s.resultSummary ?? '').join('\n');
    expect(summaries).toContain('the plan\'s were used');
    expect(summaries).toContain('There is no tool named drop_database');
    expect(job.report.judgment).toMatch(/revenue/);
  });

  it('stores a proposal the model makes with propose_action, linked to the finding it names; a bad one comes back to the model as an error', async () => {
    let tries = 0;
    const { job } = await run((r) => {
      if (forcedTool(r) || r.tool_choice !== 'auto') return wellBehaved(r);
      tries += 1;
      if (tries === 1) return { toolCall: { name: 'propose_action', arguments: JSON.stringify({ kind: 'CONTENT_RESTORE', title: 'Restore it', rationale: 'It fell.', target_id: 'c-1', params_json: '{"siteKey":"demo"}' }) } };
      if (tries === 2) {
        return { toolCall: { name: 'propose_action', arguments: JSON.stringify({
          kind: 'EXTERNAL', title: 'Pause the spring discount', rationale: 'Conversion fell the week the discount ended.', target_id: 'spring_discount',
          params_json: JSON.stringify({ lever: 'spring_discount', change: { metric: 'discount_rate', changePercent: -100 }, summary: 'Pause the spring discount.' }),
          impact_metric: 'revenue', impact_horizon_days: 7, impact_p10: 100, impact_p50: 500, impact_p90: 900, impact_method: 'the model\'s guess', follows_from: 'When it started',
        }) } };
      }
      return wellBehaved(r);
    });
    expect(job.status).toBe('COMPLETED');
    const refused = job.steps.find((s: { toolName: string; resultSummary: string }) => s.toolName === 'propose_action' && /failed/.test(s.resultSummary));
    expect(refused.resultSummary).toMatch(/The proposal was not made: params\.version: /);
    const made = job.actions.find((a: { kind: string; targetId: string }) => a.kind === 'EXTERNAL' && a.targetId === 'spring_discount');
    expect(made).toMatchObject({ status: 'PROPOSED', params: { lever: 'spring_discount' }, expectedImpact: { metric: 'revenue', p10: 100, p50: 500, p90: 900 }, finding: { title: 'When it started' } });
    expect(job.actions.some((a: { targetId: string }) => a.targetId === 'c-1')).toBe(false);
  });

  it('replaces a judgment with figures no tool produced by the composed one, and says why', async () => {
    const { job } = await run((r) => (judging(r) ? { content: JSON.stringify({ judgment: 'Revenue collapsed by 97.3 % to $1,234,567 because of the weather.', confidence: 0.99, confidenceReason: 'sure' }) } : wellBehaved(r)));
    expect(job.status).toBe('COMPLETED');
    expect(job.report.judgmentSource).toBe('composed');
    expect(job.report.judgment).toMatch(/^revenue /);
    const report = job.steps.find((s: { kind: string }) => s.kind === 'REPORT');
    expect(report.detail).toMatch(/figures no tool returned \(.*1234567/);
  });

  it('degrades to the composed judgment when the model answers malformed JSON', async () => {
    const { job } = await run((r) => (judging(r) ? { content: '{"judgment": "Revenue is' } : wellBehaved(r)));
    expect(job.status).toBe('COMPLETED');
    expect(job.report.judgmentSource).toBe('composed');
    expect(job.report.judgment).toMatch(/^revenue /);
  });

  it('fails the job with a clear error, quickly, when the provider answers 500 or a cut-off body', async () => {
    for (const broken of [{ status: 500 }, { truncated: true as const }]) {
      const { job, seconds } = await run(() => broken);
      expect(job.status).toBe('FAILED');
      expect(job.error).toMatch(/^The model gateway failed: /);
      expect(seconds).toBeLessThan(45);
    }
  });
});
