import { Directive, Field, ID, InputType, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A language a site delivers in.' })
export class SiteLocale {
  @Field(() => String, { description: 'BCP 47 tag in canonical case (de-AT).' }) tag!: string;
  @Field(() => String, { nullable: true, description: 'The locale a missing text falls back to; the chain ends with the site default.' }) fallback!: string | null;
  @Field(() => [String], { description: 'The locales a request for this one reads, best first (tag, its fallbacks, the default).' }) chain!: string[];
}

@Directive('@key(fields: "siteKey")')
@ObjectType()
export class Site {
  @Field(() => ID) id!: string;
  @Field(() => String) siteKey!: string;
  @Field(() => String) name!: string;
  @Field(() => Date) createdAt!: Date;
  @Field(() => String, { description: 'The locale delivery answers in when a request names none the site has.' }) defaultLocale!: string;
  @Field(() => [SiteLocale]) locales!: SiteLocale[];
}

@InputType()
export class SiteLocaleInput {
  @Field(() => String) tag!: string;
  @Field(() => String, { nullable: true }) fallback?: string | null;
}

@InputType()
export class SiteLocalesInput {
  @Field(() => String) defaultLocale!: string;
  @Field(() => [SiteLocaleInput]) locales!: SiteLocaleInput[];
}

@InputType()
export class CreateSiteInput {
  @Field(() => String) siteKey!: string;
  @Field(() => String) name!: string;
}
