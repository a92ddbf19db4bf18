import { validationError, type OutboundHttp } from '@svc/kit';

/**
 * A budget's alert URL is judged by the SSRF guard when it is set (422 naming
 * `alertWebhookUrl`), and again on every delivery (alert-delivery.ts).
 */
export function createAlertUrlCheck(outbound: Pick<OutboundHttp, 'refusal'>) {
  return {
    async check(alertWebhookUrl: string | null | undefined): Promise<void> {
      if (!alertWebhookUrl) return;
      const refused = await outbound.refusal(alertWebhookUrl);
      if (refused) throw validationError([{ pointer: '/alertWebhookUrl', detail: `alertWebhookUrl is not allowed: ${refused}` }]);
    },
  };
}

export type AlertUrlCheck = ReturnType<typeof createAlertUrlCheck>;
