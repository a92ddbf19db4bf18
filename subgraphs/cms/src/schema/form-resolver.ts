import type { SvcContext } from '@svc/kit';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { FormService } from '../service/form-service.js';
import { DefineFormInput, Form, FormSubmission, SubmissionReceipt } from './form-types.js';

@Resolver(() => Form)
export class FormResolver {
  constructor(private readonly forms: FormService) {}

  @Mutation(() => SubmissionReceipt, { description: 'Validates and stores a submission. Site from the argument or the X-Svc-Site-Key header.' })
  submitForm(
    @Arg('formKey', () => String) formKey: string,
    @Arg('data', () => GraphQLJSONObject) data: Record<string, unknown>,
    @Arg('siteKey', () => String, { nullable: true }) siteKey: string | null,
    @Ctx() ctx: SvcContext,
  ): Promise<SubmissionReceipt> {
    return this.forms.submit(siteKey ?? ctx.siteKey, formKey, data, ctx.clientIp);
  }

  @Mutation(() => Form, { description: 'Creates or replaces a form definition of a site.' })
  defineForm(@Arg('input', () => DefineFormInput) input: DefineFormInput, @Ctx() ctx: SvcContext): Promise<Form> {
    return this.forms.define(ctx.principal, input);
  }

  @Query(() => Form)
  form(@Arg('siteKey', () => String) siteKey: string, @Arg('formKey', () => String) formKey: string, @Ctx() ctx: SvcContext): Promise<Form> {
    return this.forms.get(ctx.principal, siteKey, formKey);
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
}
