import { purgeRequestSchema, submissionBodySchema } from '@svc/cms/contract';
import { jsonSchemaOf } from '@svc/kit';
import type { JsonSchema, RouteSpec } from '../route-spec.js';

const str = { type: 'string' };
const content: JsonSchema = {
  type: 'object',
  properties: {
    contentId: str,
    slug: str,
    title: str,
    status: { type: 'string', enum: ['PUBLISHED'] },
    publishedAt: { type: 'string', format: 'date-time' },
    version: { type: 'integer' },
    fields: { type: 'object', properties: { headline: str, description: str, bannerUrl: str, ctaText: str, ctaLink: str } },
    seo: { type: 'object', properties: { metaTitle: str, metaDescription: str, ogImage: str } },
  },
};

export const cmsRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/api/v1/contents/{contentSlug}',
    style: 'cms',
    operation: 'DeliverContent',
    variables: { slug: 'path.contentSlug', siteKey: 'header.x-svc-site-key' },
    result: 'deliveredContent',
    payload: 'content',
    cache: { etag: 'etag', surrogateKeys: 'surrogateKeys', maxAge: 'maxAgeSeconds' },
    status: 200,
    summary: 'Latest published version of a content, with SEO data',
    description: 'Cacheable: ETag / If-None-Match (304), Cache-Control s-maxage and surrogate keys (xkey, Surrogate-Key, Cache-Tag) for edge caches.',
    tag: 'content',
    security: 'none',
    requiredHeaders: ['X-Svc-Site-Key'],
    response: content,
    errors: { 404: 'No published content has the slug (content-not-found), or the site key is unknown (site-not-found)' },
  },
  {
    method: 'POST',
    path: '/api/v1/forms/{formKey}/submit',
    style: 'cms',
    operation: 'SubmitForm',
    variables: { formKey: 'path.formKey', siteKey: 'header.x-svc-site-key', data: 'body' },
    result: 'submitForm',
    status: 201,
    summary: 'Validate and store a form submission',
    description: 'Fields are validated against the form definition stored for the site. Every bad field is named in `errors[]` (422).',
    tag: 'content',
    security: 'none',
    requiredHeaders: ['X-Svc-Site-Key'],
    body: jsonSchemaOf(submissionBodySchema),
    response: { type: 'object', properties: { submissionId: str, receivedAt: { type: 'string', format: 'date-time' } } },
    errors: { 404: 'Unknown form key or site key', 422: 'Validation failed; errors[] names each field', 429: 'Too many submissions from this client (Retry-After)' },
  },
  {
    method: 'POST',
    path: '/api/v1/deploy/purge-cache',
    style: 'cms',
    operation: 'PurgeCache',
    variables: { siteKey: 'body.siteKey', contentSlug: 'body.contentSlug' },
    result: 'purgeCache',
    status: 200,
    summary: 'Invalidate the delivery cache (Redis) and every configured edge cache for one content',
    description: 'Needs a token with role editor or admin whose `sites` include siteKey. 200 when every layer purged; 502 problem (purge-incomplete) with `layers` when an edge cache failed; 503 when the delivery cache is unreachable.',
    tag: 'content',
    security: 'bearer',
    body: jsonSchemaOf(purgeRequestSchema),
    response: {
      type: 'object',
      properties: {
        siteKey: str,
        contentSlug: str,
        purgedAt: { type: 'string', format: 'date-time' },
        surrogateKey: str,
        layers: {
          type: 'array',
          items: { type: 'object', properties: { layer: str, target: str, ok: { type: 'boolean' }, detail: str, durationMs: { type: 'number' } } },
        },
      },
    },
    errors: { 404: 'Unknown site key', 422: 'Validation failed (siteKey or contentSlug missing or malformed); errors[] names each field', 502: 'An edge cache did not confirm the purge', 503: 'The delivery cache (Redis) is unreachable; nothing was purged (Retry-After)' },
  },
];
