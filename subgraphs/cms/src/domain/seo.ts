export interface ContentFields {
  headline?: string | null;
  description?: string | null;
  bannerUrl?: string | null;
  ctaText?: string | null;
  ctaLink?: string | null;
}

export interface Seo {
  metaTitle?: string | null;
  metaDescription?: string | null;
  ogImage?: string | null;
}

/** SEO as delivered: every member filled in. */
export type ResolvedSeo = Required<{ [K in keyof Seo]: string }>;

/** Meta descriptions longer than this are cut at a word boundary (search engines show ~160). */
export const META_DESCRIPTION_MAX = 160;

/** Cuts to at most `max` code points (never inside a surrogate pair), preferring a word boundary. */
function clip(text: string, max: number): string {
  const points = [...text];
  if (points.length <= max) return text;
  const cut = points.slice(0, max - 1).join('');
  const space = cut.lastIndexOf(' ');
  return `${(space > cut.length / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

const given = (v: string | null | undefined): string | undefined => (v && v.trim() ? v.trim() : undefined);

/**
 * SEO as delivered: explicit values win; otherwise metaTitle falls back to the title,
 * metaDescription to fields.description (clipped to 160 characters), ogImage to fields.bannerUrl.
 */
export function resolveSeo(title: string, fields: ContentFields, seo: Seo): ResolvedSeo {
  return {
    metaTitle: given(seo.metaTitle) ?? title,
    metaDescription: given(seo.metaDescription) ?? clip(given(fields.description) ?? '', META_DESCRIPTION_MAX),
    ogImage: given(seo.ogImage) ?? given(fields.bannerUrl) ?? '',
  };
}
