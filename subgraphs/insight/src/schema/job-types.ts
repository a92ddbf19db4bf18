import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { createUnionType, Directive, Field, Float, ID, Int, ObjectType } from 'type-graphql';

/** Entities of other subgraphs that actions and evidence point at (resolved by their owners through the router). */
@Directive('@key(fields: "code", resolvable: false)')
@ObjectType('Agent')
export class AgentRef {
  @Field(() => String) code!: string;
}

@Directive('@key(fields: "id", resolvable: false)')
@ObjectType('Content')
export class ContentRef {
  @Field(() => ID) id!: string;
}

@Directive('@key(fields: "jobId", resolvable: false)')
@ObjectType('CrawlJob')
export class CrawlJobRef {
  @Field(() => ID) jobId!: string;
}

@Directive('@key(fields: "id", resolvable: false)')
@ObjectType('CrawlItem')
export class CrawlItemRef {
  @Field(() => ID) id!: string;
}

@ObjectType('ExternalLever', { description: 'A lever the platform does not own (an ad budget, a price): EXTERNAL actions are handed off to the tenant\'s operator webhook.' })
export class ExternalLever {
  @Field(() => String) lever!: string;
}

/** The GraphQL type of an action's target, by the key it carries (actionView builds it). */
export function actionTargetType(value: object): 'Agent' | 'CrawlJob' | 'ExternalLever' | 'Content' {
  return 'code' in value ? 'Agent' : 'jobId' in value ? 'CrawlJob' : 'lever' in value ? 'ExternalLever' : 'Content';
}

export const ActionTarget = createUnionType({
  name: 'ActionTarget',
  description: 'What an action changes: a budget Agent (llm), a Content (cms), a CrawlJob (crawl) or an ExternalLever (handed off).',
  types: () => [AgentRef, ContentRef, CrawlJobRef, ExternalLever] as const,
  // The executable schema resolves it with actionTargetType directly (insight-subgraph.ts): type-graphql's own wrapper is async.
  resolveType: actionTargetType,
});

@ObjectType({ description: 'How far a job has got.' })
export class JobProgress {
  @Field(() => Int) stepsDone!: number;
  @Field(() => String, { nullable: true, description: 'Title of the latest step while the job runs.' }) currentStep!: string | null;
}

@ObjectType({ description: 'One written step of a job: plan, tool call, tool result, observation, report or status.' })
export class JobStep {
  @Field(() => Int, { description: 'Position in the job, from 1; the event id of the SSE stream.' }) seq!: number;
  @Field(() => String, { description: 'PLAN, TOOL_CALL, TOOL_RESULT, OBSERVATION, REPORT or STATUS' }) kind!: string;
  @Field(() => String) title!: string;
  @Field(() => String, { nullable: true }) detail!: string | null;
  @Field(() => String, { nullable: true }) toolName!: string | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) toolArgs!: Record<string, unknown> | null;
  @Field(() => GraphQLJSON, { nullable: true, description: 'The tool\'s whole result (TOOL_RESULT) or the plan (PLAN).' }) result!: unknown;
  @Field(() => String, { nullable: true }) resultSummary!: string | null;
  @Field(() => String, { nullable: true, description: 'STATUS steps: the job\'s new status.' }) status!: string | null;
  @Field(() => String, { description: 'ISO 8601 UTC' }) startedAt!: string;
  @Field(() => Int, { nullable: true }) durationMs!: number | null;
  @Field(() => Int, { nullable: true }) tokens!: number | null;
  @Field(() => Float, { nullable: true }) costUsd!: number | null;
}

@ObjectType({ description: 'Where a finding\'s figures come from: a metric window, a forecast, a simulation, a knowledge chunk, a content or a budget.' })
export class Evidence {
  @Field(() => String, { description: 'ANALYSIS (the engine\'s premise, range and attribution), METRIC, FORECAST, SIMULATION, KNOWLEDGE, CONTENT or BUDGET' }) kind!: string;
  @Field(() => Int, { description: 'The job step holding the tool result.' }) step!: number;
  @Field(() => String, { nullable: true }) metric!: string | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) labels!: Record<string, string> | null;
  @Field(() => String, { nullable: true }) from!: string | null;
  @Field(() => String, { nullable: true }) to!: string | null;
  @Field(() => String, { nullable: true }) summary!: string | null;
  @Field(() => String, { nullable: true }) url!: string | null;
  @Field(() => String, { nullable: true }) title!: string | null;
  @Field(() => String, { nullable: true }) excerpt!: string | null;
  @Field(() => CrawlItemRef, { nullable: true, description: 'The crawled item, resolved by crawl; null when it is none, or (with an error at its path: ENTITY_NOT_FOUND, FORBIDDEN, SUBGRAPH_UNAVAILABLE) when it cannot be read.' }) crawlItem!: CrawlItemRef | null;
  @Field(() => ContentRef, { nullable: true, description: 'The content, resolved by cms; null when it is none, or (with an error at its path: ENTITY_NOT_FOUND, FORBIDDEN, SUBGRAPH_UNAVAILABLE) when it cannot be read.' }) content!: ContentRef | null;
  @Field(() => AgentRef, { nullable: true, description: 'The budget agent, resolved by llm; null when it is none, or (with an error at its path: ENTITY_NOT_FOUND, FORBIDDEN, SUBGRAPH_UNAVAILABLE) when it cannot be read.' }) agent!: AgentRef | null;
}

@ObjectType()
export class Finding {
  @Field(() => String) title!: string;
  @Field(() => String) detail!: string;
  @Field(() => [Int], { description: 'Indexes into the report\'s evidence.' }) evidence!: number[];
}

@ObjectType({ description: 'A period of a segment table.' })
export class TablePeriod {
  @Field(() => String, { description: 'First day, ISO date.' }) from!: string;
  @Field(() => String, { description: 'Last day, ISO date.' }) to!: string;
  @Field(() => String, { description: 'As a reader sees it, e.g. `Mon 9 – Sun 15 Nov`.' }) text!: string;
}

@ObjectType({ description: 'Each figure of a segment row as the report prints it (unit and locale); null where the figure is.' })
export class SegmentRowText {
  @Field(() => String, { nullable: true }) before!: string | null;
  @Field(() => String, { nullable: true }) after!: string | null;
  @Field(() => String) contribution!: string;
  @Field(() => String) share!: string;
  @Field(() => String, { nullable: true }) explanatoryPower!: string | null;
  @Field(() => String, { nullable: true }) surprise!: string | null;
}

@ObjectType({ description: 'A segment the engine found, or (the last row) the change of all the segments not listed.' })
export class SegmentRow {
  @Field(() => String, { description: 'SEGMENT or REMAINDER' }) kind!: string;
  @Field(() => String, { description: 'The labels as `k=v, k=v`; `all other segments` for the last row.' }) label!: string;
  @Field(() => GraphQLJSONObject, { description: 'The segment\'s labels; empty for the remainder.' }) labels!: Record<string, string>;
  @Field(() => Float, { nullable: true, description: 'The segment\'s value in the comparison period, in the subject\'s unit (its own ratio for a ratio metric).' }) before!: number | null;
  @Field(() => Float, { nullable: true, description: 'The segment\'s value in the period.' }) after!: number | null;
  @Field(() => Float, { description: 'Its part of the subject\'s change, in the subject\'s unit.' }) contribution!: number;
  @Field(() => Float, { description: 'contribution ÷ the subject\'s change.' }) share!: number;
  @Field(() => Float, { nullable: true, description: 'Adtributor\'s explanatory power, within the scope the segment was chosen in (the whole, or its parent segment).' }) explanatoryPower!: number | null;
  @Field(() => Float, { nullable: true, description: 'Adtributor\'s surprise (Jensen-Shannon divergence of its share before and after).' }) surprise!: number | null;
  @Field(() => SegmentRowText) text!: SegmentRowText;
}

@ObjectType({ description: 'The drill-down of a change through the subject\'s labels: segments ranked by contribution, then the unexplained rest; the rows add up to the change.' })
export class SegmentTable {
  @Field(() => String) title!: string;
  @Field(() => Int, { description: 'The job step holding the analysis.' }) step!: number;
  @Field(() => String) metric!: string;
  @Field(() => String, { nullable: true }) unit!: string | null;
  @Field(() => String, { description: 'localization (the smallest set of label combinations that explains the change; reports written before it say adtributor, adtributor+drill-down or combination-search)' }) method!: string;
  @Field(() => String, { description: 'TOTAL (each segment\'s total) or RATIO (each segment\'s own ratio)' }) values!: string;
  @Field(() => TablePeriod) period!: TablePeriod;
  @Field(() => TablePeriod) comparison!: TablePeriod;
  @Field(() => Float, { description: 'The subject\'s change; the shares are of it.' }) change!: number;
  @Field(() => String) changeText!: string;
  @Field(() => [SegmentRow]) rows!: SegmentRow[];
}

@ObjectType({ description: 'The report of a completed job. Every figure in it comes from a tool result.' })
export class InsightReport {
  @Field(() => String) judgment!: string;
  @Field(() => String, { description: 'model (the model\'s judgment passed the grounding check) or composed' }) judgmentSource!: string;
  @Field(() => [Finding]) findings!: Finding[];
  @Field(() => [Evidence]) evidence!: Evidence[];
  @Field(() => Float, { description: '0 to 1' }) confidence!: number;
  @Field(() => String) confidenceReason!: string;
  @Field(() => [GraphQLJSONObject], { description: 'Series (with the analysed period and event markers), forecasts (p10/p50/p90 band), what-ifs, and the waterfall of a change (bars: start, causes, unexplained, end) to draw.' }) charts!: Record<string, unknown>[];
  @Field(() => [SegmentTable], { description: 'Drill-down tables of segments, one per analysis whose attribution through labels found segments; empty otherwise.' }) segmentTables!: SegmentTable[];
}

@ObjectType()
export class ExpectedImpact {
  @Field(() => String) metric!: string;
  @Field(() => Int) horizon!: number;
  @Field(() => Float) p10!: number;
  @Field(() => Float) p50!: number;
  @Field(() => Float) p90!: number;
  @Field(() => String, { nullable: true, description: 'How it was estimated, in words.' }) method!: string | null;
  @Field(() => Int, { nullable: true, description: 'The horizon in days.' }) horizonDays!: number | null;
  @Field(() => String, { nullable: true, description: 'The unit of p10-p90 (USD, sessions, %).' }) unit!: string | null;
}

@ObjectType({ description: 'The report finding a proposal follows from.' })
export class ProposalFinding {
  @Field(() => Int, { description: 'Its index in the report\'s findings.' }) index!: number;
  @Field(() => String) title!: string;
  @Field(() => String) detail!: string;
}

@ObjectType({ description: 'The one decision on an action.' })
export class Decision {
  @Field(() => String) reviewedBy!: string;
  @Field(() => String, { description: 'The token subject that decided.' }) reviewerSubject!: string;
  @Field(() => String, { nullable: true }) comment!: string | null;
  @Field(() => String) decidedAt!: string;
}

@Directive('@key(fields: "actionId")')
@ObjectType({ description: 'A change the agent proposes in another service; a reviewer approves or rejects it once.' })
export class ActionProposal {
  @Field(() => ID) actionId!: string;
  @Field(() => ID) jobId!: string;
  @Field(() => String, { description: 'BUDGET_CHANGE, CONTENT_DRAFT_UPDATE, CONTENT_PUBLISH, CONTENT_RESTORE, CRAWL_TRIGGER, CRAWL_SELECTOR_CHANGE or EXTERNAL' }) kind!: string;
  @Field(() => String) title!: string;
  @Field(() => String) rationale!: string;
  @Field(() => String, { description: 'Agent, Content, CrawlJob or External' }) targetType!: string;
  @Field(() => String) targetId!: string;
  @Field(() => String, { nullable: true, description: 'The target in the report\'s words, for a person: an external lever in the catalog\'s words ("Ad spend (search ads)"), a page by its title and slug, a crawl job by its name, an agent by its code. Null when the analysis read nothing that names it, and on proposals stored before it was kept.' }) targetName!: string | null;
  @Field(() => String, { nullable: true, description: 'When the analysis service learned that the target no longer exists (ISO 8601 UTC; it asks the target\'s subgraph when a proposal is read, at most every 30 s, and when it is approved): the proposal then EXPIRED at once and cannot be approved (409); targetName keeps the target\'s last known name. Null while it is not known to be gone.' }) targetGoneAt!: string | null;
  @Field(() => ActionTarget, { nullable: true, description: 'The target entity, resolved by its own subgraph. Null when it cannot be read, with an error at this field\'s path whose code says why: ENTITY_NOT_FOUND (it no longer exists; targetName keeps its last known name), FORBIDDEN (the caller may not read it) or SUBGRAPH_UNAVAILABLE (its subgraph did not answer); the rest of the answer stands.' }) target!: typeof ActionTarget | null;
  @Field(() => GraphQLJSONObject) params!: Record<string, unknown>;
  @Field(() => String, { description: 'SHA-256 of kind, target and parameters as proposed; decisions are bound to it.' }) paramsHash!: string;
  @Field(() => ExpectedImpact, { nullable: true }) expectedImpact!: ExpectedImpact | null;
  @Field(() => Boolean, { description: 'Whether the change can be undone.' }) undoable!: boolean;
  @Field(() => String, { description: 'How to undo it (or why it cannot be).' }) undo!: string;
  @Field(() => ProposalFinding, { nullable: true, description: 'The report finding it follows from (null for proposals stored before findings were cited).' }) finding!: ProposalFinding | null;
  @Field(() => String, { description: 'PROPOSED, APPROVED, REJECTED, EXPIRED, EXECUTED or EXECUTION_FAILED. EXPIRED after its time, or at once when a newer analysis proposes the same change (outcome.supersededBy names that action). An EXTERNAL action stays APPROVED while its hand-off is PENDING (outcome.deliveryStatus) and is EXECUTED once the operator webhook accepted it.' }) status!: string;
  @Field(() => String) proposedAt!: string;
  @Field(() => String) expiresAt!: string;
  @Field(() => Decision, { nullable: true }) decision!: Decision | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'What the target reported: its new version or state, or the error. EXTERNAL: {handedOffTo, deliveryStatus PENDING|DELIVERED|FAILED, deliveryAttempts, error}.' }) outcome!: Record<string, unknown> | null;
  @Field(() => String, { nullable: true }) executedAt!: string | null;
}

@Directive('@key(fields: "jobId")')
@ObjectType({ description: 'An analysis job: a question, the agent\'s steps, its report and proposed actions.' })
export class InsightJob {
  @Field(() => ID) jobId!: string;
  @Field(() => String, { description: 'PENDING, RUNNING, COMPLETED, FAILED or CANCELLED' }) status!: string;
  @Field(() => String) prompt!: string;
  @Field(() => String) requesterId!: string;
  @Field(() => String, { description: 'ISO 8601 UTC' }) createdAt!: string;
  @Field(() => String, { nullable: true }) startedAt!: string | null;
  @Field(() => String, { nullable: true }) finishedAt!: string | null;
  @Field(() => JobProgress) progress!: JobProgress;
  @Field(() => InsightReport, { nullable: true }) report!: InsightReport | null;
  @Field(() => String, { nullable: true, description: 'Why it FAILED, in words for a person.' }) error!: string | null;
  @Field(() => Int) tokens!: number;
  @Field(() => Float) costUsd!: number;
}

@ObjectType()
export class InsightJobPage {
  @Field(() => [InsightJob]) jobs!: InsightJob[];
  @Field(() => String, { nullable: true, description: 'Pass as `after` for the next page.' }) nextCursor!: string | null;
}
