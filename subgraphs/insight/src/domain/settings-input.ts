import { z } from 'zod';

/**
 * A tenant's analysis settings as set by its admin: the operator webhook that approved
 * EXTERNAL actions are handed off to. `operatorWebhookUrl` null clears it (and its secret);
 * `operatorWebhookSecret` may be left out to keep the stored one when only the URL changes.
 */
export const settingsInputSchema = z
  .object({
    operatorWebhookUrl: z
      .string({ error: 'operatorWebhookUrl must be a string or null' })
      .trim()
      .max(2000, 'operatorWebhookUrl must be at most 2000 characters')
      .refine((v) => /^https?:\/\/[^\s]+$/i.test(v) && URL.canParse(v), 'operatorWebhookUrl must be an absolute http(s) URL')
      .nullable(),
    operatorWebhookSecret: z
      .string({ error: 'operatorWebhookSecret must be a string' })
      .min(16, 'operatorWebhookSecret must be at least 16 characters')
      .max(256, 'operatorWebhookSecret must be at most 256 characters')
      .optional(),
  })
  .strict()
  .meta({ example: { operatorWebhookUrl: 'https://ops.example.com/hooks/svc', operatorWebhookSecret: 'a-long-shared-secret-0123' } });

export type SettingsInput = z.output<typeof settingsInputSchema>;

/** The settings as shown: the secret never, only whether one is stored. */
export interface SettingsView {
  tenantId: string;
  operatorWebhookUrl: string | null;
  operatorWebhookSecretSet: boolean;
  updatedBy: string | null;
  updatedAt: string | null;
}
