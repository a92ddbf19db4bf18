import { Directive, Field, ID, InputType, ObjectType } from 'type-graphql';

@Directive('@key(fields: "siteKey")')
@ObjectType()
export class Site {
  @Field(() => ID) id!: string;
  @Field(() => String) siteKey!: string;
  @Field(() => String) name!: string;
  @Field(() => Date) createdAt!: Date;
}

@InputType()
export class CreateSiteInput {
  @Field(() => String) siteKey!: string;
  @Field(() => String) name!: string;
}
