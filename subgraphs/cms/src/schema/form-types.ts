import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';

@ObjectType()
export class FormFieldDefinition {
  @Field(() => String) name!: string;
  @Field(() => String, { description: 'text, textarea, email, tel, url or enum' }) type!: string;
  @Field(() => Boolean) required!: boolean;
  @Field(() => Int, { nullable: true }) maxLength?: number | null;
  @Field(() => String, { nullable: true }) pattern?: string | null;
  @Field(() => [String], { nullable: true }) options?: string[] | null;
  @Field(() => String, { nullable: true }) label?: string | null;
}

@InputType()
export class FormFieldInput {
  @Field(() => String) name!: string;
  @Field(() => String) type!: string;
  @Field(() => Boolean, { defaultValue: false }) required!: boolean;
  @Field(() => Int, { nullable: true }) maxLength?: number | null;
  @Field(() => String, { nullable: true }) pattern?: string | null;
  @Field(() => [String], { nullable: true }) options?: string[] | null;
  @Field(() => String, { nullable: true }) label?: string | null;
}

@ObjectType()
export class Form {
  @Field(() => ID) id!: string;
  @Field(() => String) siteKey!: string;
  @Field(() => String) formKey!: string;
  @Field(() => String) name!: string;
  @Field(() => [FormFieldDefinition]) fields!: FormFieldDefinition[];
  @Field(() => String, { nullable: true }) honeypotField?: string | null;
  @Field(() => String, { nullable: true }) webhookUrl?: string | null;
  @Field(() => Int, { nullable: true }) rateLimitPerMinute?: number | null;
}

@InputType()
export class DefineFormInput {
  @Field(() => String) siteKey!: string;
  @Field(() => String) formKey!: string;
  @Field(() => String) name!: string;
  @Field(() => [FormFieldInput]) fields!: FormFieldInput[];
  @Field(() => String, { nullable: true }) honeypotField?: string | null;
  @Field(() => String, { nullable: true }) webhookUrl?: string | null;
  @Field(() => Int, { nullable: true }) rateLimitPerMinute?: number | null;
}

@ObjectType({ description: 'Receipt of a stored submission.' })
export class SubmissionReceipt {
  @Field(() => ID) submissionId!: string;
  @Field(() => String, { description: 'ISO 8601 UTC' }) receivedAt!: string;
}

@ObjectType()
export class FormSubmission {
  @Field(() => ID) id!: string;
  @Field(() => String) formKey!: string;
  @Field(() => GraphQLJSONObject) data!: Record<string, string>;
  @Field(() => Boolean, { description: 'The honeypot field was filled in; not forwarded to the webhook.' }) spam!: boolean;
  @Field(() => Date) receivedAt!: Date;
  @Field(() => String, { description: 'NONE, PENDING, DELIVERED or FAILED' }) webhookStatus!: string;
  @Field(() => Int) webhookAttempts!: number;
}

@ObjectType({ description: 'Submissions one form of a site received on one UTC day.' })
export class FormSubmissionDay {
  @Field(() => String) siteKey!: string;
  @Field(() => String) formKey!: string;
  @Field(() => String, { description: 'YYYY-MM-DD (UTC)' }) day!: string;
  @Field(() => Int, { description: 'Submissions that were not spam.' }) submissions!: number;
  @Field(() => Int, { description: 'Submissions caught by the honeypot.' }) spam!: number;
}
