/** What the settings pages read from the service (docs/api.md: mail templates, newsletters, subscribers). */

/** subject, html and text of a stored mail template or newsletter, as PUT takes them. */
export interface MailContent {
  subject: string;
  html: string;
  text: string;
}

export interface MailTemplate extends MailContent {
  template_id: string;
  created: number;
  updated: number;
}

/** A newsletter group: 'public', 'authorized', a number 2..99 (answered as a number) or a name. */
export type NewsletterGroup = string | number;

export interface Newsletter extends MailContent {
  group: NewsletterGroup;
  message_id: string;
  created: number;
  updated: number;
}

export interface Subscriber {
  email: string;
  user_id?: string;
  created: number;
}
