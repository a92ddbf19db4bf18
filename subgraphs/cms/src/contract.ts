/**
 * The content service's REST contract: zod schemas of the request bodies it takes. The service
 * validates with them (purge.ts, submit-form.ts) and the REST bridge's OpenAPI document is
 * generated from them, so the document cannot drift from the rules. Which fields a form takes
 * is the form's own definition, checked after this (validate-submission.ts).
 */
import { z } from 'zod';
import { SITE_KEY, SLUG } from './domain/slug.js';

const must = (text: string) => ({ error: text });
const siteKey = z.string(must('must be 2-63 lower-case letters, digits or dashes')).regex(SITE_KEY);
const slug = z.string(must('must be lower-case words joined by dashes (a-z, 0-9), at most 200 characters')).max(200).regex(SLUG);

/** POST /api/v1/deploy/purge-cache. */
export const purgeRequestSchema = z.object({ siteKey, contentSlug: slug }).meta({ example: { siteKey: 'demo', contentSlug: 'about' } });

/** POST /api/v1/forms/{formKey}/submit: field name -> value; null or absent leaves an optional field empty. */
export const submissionBodySchema = z
  .record(z.string(), z.string(must('must be a string')).nullable())
  .meta({
    description: "The form's fields by name, as the form definition for the site declares them (required, maxLength, pattern, email, options). Unknown fields are refused.",
    example: { applicantName: 'Ada Lovelace', email: 'ada@example.com', company: 'Analytical Engines', inquiryType: 'PARTNERSHIP', message: 'Hello' },
  });

// Payloads (the `data` of the content envelope), for the OpenAPI document; the fuzz suite checks
// every success against them (every member present, of its type).
const time = z.string().meta({ format: 'date-time' });
const optionalText = z.string().nullable();

/** GET /api/v1/contents/{contentSlug}: the latest published version with its resolved SEO data (with ?preview=<token>, the draft the token names). */
export const deliveredContentSchema = z
  .object({
    contentId: z.string(), slug: z.string(), title: z.string(),
    status: z.enum(['PUBLISHED', 'DRAFT']).meta({ description: 'PUBLISHED; DRAFT only in a preview' }),
    publishedAt: time.nullable().meta({ description: 'null only in a preview' }), version: z.number().int(),
    fields: z.object({ headline: optionalText, description: optionalText, bannerUrl: optionalText, ctaText: optionalText, ctaLink: optionalText }).loose(),
    seo: z.object({
      metaTitle: z.string(), metaDescription: z.string(), ogImage: z.string(),
      alternates: z.array(z.object({ hreflang: z.string(), slug: z.string() })).meta({ description: 'Every published locale of the content (hreflang), then x-default' }),
    }).loose(),
    locale: z.string().meta({ description: 'The locale served (also Content-Language)' }),
    requestedLocale: z.string().meta({ description: 'The locale asked for, after negotiation' }),
    fellBack: z.boolean().meta({ description: 'True when the served locale is not the one asked for, or a field came from a fallback locale' }),
  })
  .loose();
export const submissionReceiptSchema = z.object({ submissionId: z.string(), receivedAt: time }).loose();
export const purgeReportSchema = z
  .object({
    siteKey: z.string(), contentSlug: z.string(), purgedAt: time, surrogateKey: z.string(),
    layers: z.array(z.object({ layer: z.string(), target: z.string(), ok: z.boolean(), detail: z.string(), durationMs: z.number() }).loose()),
  })
  .loose();
