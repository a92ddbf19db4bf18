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

@ObjectType({ description: 'Another published locale of the same content, for hreflang links.' })
export class SeoAlternate {
  @Field(() => String, { description: 'A locale tag, or x-default for the site default locale.' }) hreflang!: string;
  @Field(() => String) slug!: string;
}

@ObjectType({ description: 'SEO as delivered: metaTitle falls back to title, metaDescription to fields.description, ogImage to fields.bannerUrl (within the locale, then along its fallback chain).' })
export class ResolvedSeo {
  @Field(() => String) metaTitle!: string;
  @Field(() => String) metaDescription!: string;
  @Field(() => String) ogImage!: string;
  @Field(() => [SeoAlternate], { description: 'Every published locale of the content (hreflang), in the site\'s order, then x-default.' }) alternates!: SeoAlternate[];
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
  @Field(() => String, { description: 'The locale served (Content-Language).' }) locale!: string;
  @Field(() => String, { description: 'The locale asked for (?locale= or Accept-Language), after negotiation against the site\'s locales.' }) requestedLocale!: string;
  @Field(() => Boolean, { description: 'True when the served locale is not the one asked for, or a field came from a fallback locale.' }) fellBack!: boolean;
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

@ObjectType({ description: 'One locale of a content.' })
export class ContentTranslation {
  @Field(() => ID) id!: string;
  @Field(() => String) locale!: string;
  @Field(() => String) slug!: string;
  @Field(() => Int, { nullable: true }) publishedVersion!: number | null;
  @Field(() => Int) latestVersion!: number;
}

@Directive('@key(fields: "id")')
@ObjectType({ description: 'One locale of an authored content with its version history (each locale is published, scheduled and restored on its own). Other subgraphs reference it by id.' })
export class Content {
  @Field(() => ID) id!: string;
  @Field(() => String) siteKey!: string;
  @Field(() => String, { description: 'The locale of this content and its versions.' }) locale!: string;
  @Field(() => ID, { description: 'Shared by every locale of the same content (the id of its first locale).' }) groupId!: string;
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
  @Field(() => String, { nullable: true, description: 'One of the site\'s locales; default the site default.' }) locale?: string | null;
  @Field(() => ID, { nullable: true, description: 'The id of another locale of this content: the new one is its translation.' }) translationOf?: string | null;
  @Field(() => String, { description: 'Lower-case words joined by dashes; unique per site and locale; cannot change later.' }) slug!: string;
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
