/** A site: contents and forms belong to one, and tokens grant sites by key. */
export interface Site {
  id: string;
  siteKey: string;
  name: string;
  createdAt: Date;
}
