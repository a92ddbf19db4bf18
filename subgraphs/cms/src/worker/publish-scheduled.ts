import type { Agenda, Logger } from '@svc/kit';
import type { PublishScheduler, Publishing } from '../service/publishing.js';

const PUBLISH = 'cms.publish-scheduled';

/**
 * The `cms.publish-scheduled` job: publishes a content version at its scheduled time (one
 * agenda job per content, replaced by a later schedule; it survives restarts).
 */
export function createPublishScheduled(agenda: Agenda, log: Logger) {
  const scheduler: PublishScheduler = {
    async schedule(contentId, version, at) {
      await agenda.create(PUBLISH, { contentId, version }).unique({ 'data.contentId': contentId }).schedule(at).save();
    },
  };
  return {
    scheduler,
    /** Registers the handler; call before agenda.start(). */
    define(publishing: Pick<Publishing, 'publishScheduled'>) {
      agenda.define(PUBLISH, async (job: { attrs: { data: { contentId: string; version: number } } }) => {
        const { contentId, version } = job.attrs.data;
        const published = await publishing.publishScheduled(contentId, version);
        log.info({ contentId, version, published }, 'scheduled publish ran');
      });
    },
  };
}
