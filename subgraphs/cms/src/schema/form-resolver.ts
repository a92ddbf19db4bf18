import type { SvcContext } from '@svc/kit';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { FieldType, FormDefinition } from '../domain/form-definition.js';
import type { Forms } from '../service/forms.js';
import type { SubmitForm } from '../service/submit-form.js';
import { DefineFormInput, Form, FormSubmission, FormSubmissionDay, SubmissionReceipt } from './form-types.js';
import { formView } from './views.js';

// GraphQL's nulls become left-out members; checkFormDefinition then checks the type names.
const definitionOf = (input: DefineFormInput): FormDefinition => ({
  formKey: input.formKey,
  name: input.name,
  fields: input.fields.map((f) => ({
    name: f.name,
    type: f.type as FieldType,
    required: f.required,
    ...(f.maxLength != null ? { maxLength: f.maxLength } : {}),
    ...(f.pattern != null ? { pattern: f.pattern } : {}),
    ...(f.options != null ? { options: f.options } : {}),
    ...(f.label != null ? { label: f.label } : {}),
  })),
  honeypotField: input.honeypotField ?? undefined,
  webhookUrl: input.webhookUrl ?? undefined,
  rateLimitPerMinute: input.rateLimitPerMinute ?? undefined,
});

@Resolver(() => Form)
export class FormResolver {
  constructor(
    private readonly forms: Forms,
    private readonly submissions: SubmitForm,
  ) {}

  @Mutation(() => SubmissionReceipt, { description: 'Validates and stores a submission. Site from the argument or the X-Svc-Site-Key header.' })
  submitForm(
    @Arg('formKey', () => String) formKey: string,
    @Arg('data', () => GraphQLJSONObject) data: Record<string, unknown>,
    @Arg('siteKey', () => String, { nullable: true }) siteKey: string | null,
    @Ctx() ctx: SvcContext,
  ): Promise<SubmissionReceipt> {
    return this.submissions.submit(siteKey ?? ctx.siteKey, formKey, data, ctx.clientIp);
  }

  @Mutation(() => Form, { description: 'Creates or replaces a form definition of a site.' })
  async defineForm(@Arg('input', () => DefineFormInput) input: DefineFormInput, @Ctx() ctx: SvcContext): Promise<Form> {
    return formView(await this.forms.define(ctx.principal, input.siteKey, definitionOf(input)));
  }

  @Query(() => Form)
  async form(@Arg('siteKey', () => String) siteKey: string, @Arg('formKey', () => String) formKey: string, @Ctx() ctx: SvcContext): Promise<Form> {
    return formView(await this.forms.get(ctx.principal, siteKey, formKey));
  }

  @Query(() => [FormSubmission], { description: 'Newest first; limit 1-500, default 50.' })
  formSubmissions(
    @Arg('siteKey', () => String) siteKey: string,
    @Arg('formKey', () => String) formKey: string,
    @Arg('limit', () => Int, { defaultValue: 50 }) limit: number,
    @Ctx() ctx: SvcContext,
  ): Promise<FormSubmission[]> {
    return this.forms.submissions(ctx.principal, siteKey, formKey, limit);
  }

  @Query(() => [FormSubmissionDay], {
    description: 'Submissions per form and UTC day in [from, to) (at most 1,100 days), of one site or of every site the token grants; editors, analysts, reviewers and admins.',
  })
  formSubmissionCounts(
    @Arg('from', () => Date) from: Date,
    @Arg('to', () => Date) to: Date,
    @Arg('siteKey', () => String, { nullable: true }) siteKey: string | null,
    @Ctx() ctx: SvcContext,
  ): Promise<FormSubmissionDay[]> {
    return this.forms.dailyCounts(ctx.principal, { siteKey: siteKey ?? undefined, from, to });
  }
}
