import { Directive, Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { ContentStatus, VersionStatus } from '../domain/content.js';

registerEnumType(ContentStatus, { name: 'ContentStatus', description: 'Publication state of a content as a whole.' });
registerEnumType(VersionStatus, {
  name: 'VersionStatus',
  description: 'DRAFT: editable, never live. PUBLISHED: the live version (at most one). SUPERSEDED: was live, replaced by a newer publish. UNPUBLISHED: was live, taken down.',
});

@ObjectType({ description: 'Editorial fields of a content.' })
export class ContentFields {
  @Field(() => String, { nullable: true }) headline?: string | null;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => String, { nullable: true }) bannerUrl?: string | null;
  @Field(() => String, { nullable: true }) ctaText?: string | null;
  @Field(() => String, { nullable: true }) ctaLink?: string | null;
}

@InputType()
export class ContentFieldsInput {
  @Field(() => String, { nullable: true }) headline?: string | null;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => String, { nullable: true }) bannerUrl?: string | null;
  @Field(() => String, { nullable: true }) ctaText?: string | null;
  @Field(() => String, { nullable: true }) ctaLink?: string | null;
}

@ObjectType({ description: 'SEO values as stored; empty members fall back on delivery.' })
export class SeoFields {
  @Field(() => String, { nullable: true }) metaTitle?: string | null;
  @Field(() => String, { nullable: true }) metaDescription?: string | null;
  @Field(() => String, { nullable: true }) ogImage?: string | null;
}

@InputType()
export class SeoInput {
  @Field(() => String, { nullable: true }) metaTitle?: string | null;
  @Field(() => String, { nullable: true }) metaDescription?: string | null;
  @Field(() => String, { nullable: true }) ogImage?: string | null;
}

@ObjectType({ description: 'SEO as delivered: metaTitle falls back to title, metaDescription to fields.description, ogImage to fields.bannerUrl.' })
export class ResolvedSeo {
  @Field(() => String) metaTitle!: string;
  @Field(() => String) metaDescription!: string;
  @Field(() => String) ogImage!: string;
}

@ObjectType({ description: 'What a preview link shows.' })
export class PreviewInfo {
  @Field(() => Int, { description: 'The draft version shown.' }) version!: number;
  @Field(() => String, { description: 'When the link stops working, ISO 8601 UTC.' }) expiresAt!: string;
}

@ObjectType({ description: 'The content record of the delivery API: the latest PUBLISHED version, or in a preview the draft version the link names.' })
export class PublishedContent {
  @Field(() => ID) contentId!: string;
  @Field(() => String) slug!: string;
  @Field(() => String) title!: string;
  @Field(() => String, { description: 'PUBLISHED; DRAFT in a preview.' }) status!: string;
  @Field(() => String, { nullable: true, description: 'ISO 8601 UTC; null only in a preview.' }) publishedAt!: string | null;
  @Field(() => Int) version!: number;
  @Field(() => ContentFields) fields!: ContentFields;
  @Field(() => ResolvedSeo) seo!: ResolvedSeo;
}

@ObjectType({ description: 'A link that shows one draft version to anyone holding it, until it expires or the site\'s preview secret is rotated.' })
export class PreviewLink {
  @Field(() => String, { description: 'Signed token: GET /api/v1/contents/{slug}?preview=<token>, or deliveredContent(slug, preview: token).' }) token!: string;
  @Field(() => ID) contentId!: string;
  @Field(() => String) siteKey!: string;
  @Field(() => String) slug!: string;
  @Field(() => Int) version!: number;
  @Field(() => Date) expiresAt!: Date;
  @Field(() => String, { description: 'The delivery path with the token, relative to the REST base URL.' }) path!: string;
}

@ObjectType()
export class PreviewSecretRotation {
  @Field(() => String) siteKey!: string;
  @Field(() => Date, { description: 'From now on only links made after this time work.' }) rotatedAt!: Date;
}

@ObjectType({ description: 'A delivered content with what HTTP caches need.' })
export class Delivery {
  @Field(() => String, { description: 'Strong ETag of the delivered representation.' }) etag!: string;
  @Field(() => Int, { description: 'Shared-cache lifetime in seconds (s-maxage).' }) maxAgeSeconds!: number;
  @Field(() => [String], { description: 'Keys edge caches tag the response with, for purging.' }) surrogateKeys!: string[];
  @Field(() => PublishedContent) content!: PublishedContent;
  @Field(() => PreviewInfo, { nullable: true, description: 'Set only when a preview token was given.' }) preview?: PreviewInfo | null;
}

@ObjectType()
export class ContentVersion {
  @Field(() => Int) version!: number;
  @Field(() => VersionStatus) status!: VersionStatus;
  @Field(() => String) title!: string;
  @Field(() => ContentFields) fields!: ContentFields;
  @Field(() => SeoFields) seo!: SeoFields;
  @Field(() => Date) createdAt!: Date;
  @Field(() => String, { nullable: true }) createdBy?: string | null;
  @Field(() => Date, { nullable: true }) publishedAt?: Date | null;
}

@Directive('@key(fields: "id")')
@ObjectType({ description: 'An authored content with its version history. Other subgraphs reference it by id.' })
export class Content {
  @Field(() => ID) id!: string;
  @Field(() => String) siteKey!: string;
  @Field(() => String) slug!: string;
  @Field(() => ContentStatus) status!: ContentStatus;
  @Field(() => String, { description: 'Title of the latest version.' }) title!: string;
  @Field(() => Int, { description: 'Number of the newest version (draft or not).' }) latestVersion!: number;
  @Field(() => Int, { nullable: true, description: 'Number of the live version, if any.' }) publishedVersion?: number | null;
  @Field(() => Date, { nullable: true }) publishedAt?: Date | null;
  @Field(() => Date, { nullable: true }) scheduledPublishAt?: Date | null;
  @Field(() => Int, { nullable: true }) scheduledVersion?: number | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
  @Field(() => [ContentVersion], { description: 'Every version, newest first.' }) versions!: ContentVersion[];
}

@InputType()
export class CreateContentInput {
  @Field(() => String) siteKey!: string;
  @Field(() => String, { description: 'Lower-case words joined by dashes; unique per site; cannot change later.' }) slug!: string;
  @Field(() => String) title!: string;
  @Field(() => ContentFieldsInput, { nullable: true }) fields?: ContentFieldsInput | null;
  @Field(() => SeoInput, { nullable: true }) seo?: SeoInput | null;
}

@InputType({ description: 'Members left out keep their current value; null clears a field.' })
export class UpdateDraftInput {
  @Field(() => String, { nullable: true }) title?: string | null;
  @Field(() => ContentFieldsInput, { nullable: true }) fields?: ContentFieldsInput | null;
  @Field(() => SeoInput, { nullable: true }) seo?: SeoInput | null;
}
