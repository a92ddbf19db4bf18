/**
 * The embedded demo's story, shared by the services that seed it (insight seeds the shop's
 * figures, cms its pages, crawl its job's runs; none reads the others), so what the figures show lines up with what
 * the pages record. The page changes happen in the last complete ISO week (Monday to Sunday)
 * before the seeding day, the week "last week" reads, and the crawl's healing just before it:
 * - Tuesday 09:30 UTC: version 2 of the `pricing` page goes live, and the shop's conversion
 *   falls from that day on (so revenue falls too);
 * - Friday 10:00 UTC: version 2 of the `newsletter` page goes live with a weaker call to action,
 *   and newsletter sign-ups fall from that day on; on Saturday an editor starts a draft
 *   (version 3) that still carries the weaker call to action.
 * The two days are three apart, so neither change lines up with the other's fall.
 * An analysis finds each fall, the page version published on its day, and proposes to restore
 * the version before it (pricing) or to put it back in the waiting draft (newsletter).
 * - The Saturday before that week, 06:00 UTC: the daily run of the demo tenant's crawl job
 *   "Competitor prices" heals its selectors onto the catalogue's featured rows only, and the job
 *   collects about a tenth of its items from then on; an analysis of crawled items last week
 *   proposes changing the selectors back. Saturday is three days from the pricing change (more
 *   than the two days within which another series' change counts as moving at the same time),
 *   so no fall lines up with another's event.
 * - The Wednesday before that week, 06:00 UTC: the supplier's stock page starts refusing the
 *   demo tenant's second crawl job, "Supplier stock", and every daily run fails from then on, so
 *   the job collects nothing; an analysis of its items proposes running it again. Wednesday is
 *   three days before the healing and six before the pricing change.
 */
export interface DemoStory {
  /** Monday of the week, `YYYY-MM-DD`. */
  week: string;
  pricingChange: Date;
  newsletterChange: Date;
  newsletterDraft: Date;
  crawlHealing: Date;
  crawlOutage: Date;
}

const DAY = 86_400_000;

export function demoStory(seededAt: Date): DemoStory {
  const today = Math.floor(seededAt.getTime() / DAY) * DAY;
  const weekday = (new Date(today).getUTCDay() + 6) % 7;
  const monday = today - (weekday + 7) * DAY;
  return {
    week: new Date(monday).toISOString().slice(0, 10),
    pricingChange: new Date(monday + DAY + 9.5 * 3_600_000),
    newsletterChange: new Date(monday + 4 * DAY + 10 * 3_600_000),
    newsletterDraft: new Date(monday + 5 * DAY + 14 * 3_600_000),
    crawlHealing: new Date(monday - 2 * DAY + 6 * 3_600_000),
    crawlOutage: new Date(monday - 5 * DAY + 6 * 3_600_000),
  };
}
