/** NONE: nothing to forward (no webhook, or spam). PENDING until the webhook accepts it or the attempts run out. */
export type WebhookStatus = 'NONE' | 'PENDING' | 'DELIVERED' | 'FAILED';

/** A stored form submission. */
export interface Submission {
  id: string;
  formKey: string;
  /** Trimmed values of the declared fields that were sent. */
  data: Record<string, string>;
  /** The honeypot field was filled in; never forwarded. */
  spam: boolean;
  receivedAt: Date;
  webhookStatus: WebhookStatus;
  webhookAttempts: number;
}

/** A submission with where its webhook goes. */
export interface OutgoingSubmission extends Submission {
  siteKey: string;
  webhookUrl: string | null;
}

/** What the submitter gets back once the submission is stored. */
export interface SubmissionReceipt {
  submissionId: string;
  /** ISO 8601 UTC */
  receivedAt: string;
}

/** How many submissions one form of a site received on one UTC day (no submission content). */
export interface SubmissionDay {
  siteKey: string;
  formKey: string;
  /** YYYY-MM-DD, UTC */
  day: string;
  /** Submissions that were not spam. */
  submissions: number;
  /** Submissions caught by the honeypot. */
  spam: number;
}
