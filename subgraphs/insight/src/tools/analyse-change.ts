import { SvcError } from '@svc/kit';
import { z } from 'zod';
import { narrate } from '../engine/narrative.js';
import { defineTool } from './tool.js';

/**
 * The analysis engine as a tool: it reads the question, picks its metric in the tenant's catalog
 * (exact name, then synonym, then words), checks the premise against the expected range, finds
 * when the change started, attributes it through formulas, drivers and labels (with what is left
 * unexplained), lines events up, and answers first. The figures are the engine's; a model
 * writes around them.
 */
export const analyseChange = defineTool({
  name: 'analyse_change',
  description: 'Answers "why did X change / is it unusual / what if": premise check against the expected range, change point, causes with shares and the unexplained rest, events, forecast and what-if, on the tenant\'s catalog.',
  input: z.object({
    question: z.string().min(1).max(2000).describe('The question as the person asked it.'),
  }),
  async run(ctx, args) {
    if (!ctx.analysis) throw new SvcError('UNAVAILABLE', 'The analysis engine is not available here');
    const { finding, failedReads, limits, history } = await ctx.analysis.analyse(ctx.caller, args.question);
    const { answer, statements } = narrate(finding);
    const lead = statements.slice(0, 3);
    // What a configured limit left out (named, with what to do) and a series that could not be read
    // (a value that overflows, a source that refused) are said, not hidden.
    const said = [
      ...limits.map((text) => ({ topic: 'note' as const, text: `${text}.` })),
      ...(failedReads.length ? [{ topic: 'note' as const, text: `${failedReads.length} series could not be read: ${failedReads.slice(0, 3).join('; ')}.` }] : []),
    ];
    statements.push(...said);
    return {
      data: { answer, statements, finding, history, ...(failedReads.length ? { failedReads } : {}), ...(limits.length ? { limits } : {}) },
      summary: [answer, ...lead.map((s) => s.text), ...said.map((s) => s.text)].join(' '),
    };
  },
});
