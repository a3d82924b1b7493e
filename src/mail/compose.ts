/**
 * Fills a stored mail template or newsletter (subject, html, text) with placeholder values. Pure.
 *
 * Placeholders are written ${name} (name: letters, digits, _; not starting with a digit), the same
 * form as ticket references; $${name} writes a literal ${name}; a name with no value stays as
 * written. Values are HTML-escaped in html, and line breaks become spaces in the subject.
 */

export interface MailContent {
  subject: string;
  html: string;
  text: string;
}

const PLACEHOLDER = /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export function fillPlaceholders(template: string, values: Record<string, string>, escape: (value: string) => string = (value) => value): string {
  return template.replace(PLACEHOLDER, (whole, literal: string, name: string) => {
    if (literal) return whole.slice(1);
    return Object.hasOwn(values, name) ? escape(values[name]) : whole;
  });
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]);
const oneLine = (value: string): string => value.replace(/[\r\n]+/g, ' ');

export function composeMail(content: MailContent, values: Record<string, string>): MailContent {
  return {
    subject: oneLine(fillPlaceholders(content.subject, values, oneLine)),
    html: fillPlaceholders(content.html, values, escapeHtml),
    text: fillPlaceholders(content.text, values),
  };
}

/** "Name <address>" with the characters that would break the header left out of the name. */
export function senderOf(displayName: string, address: string): string {
  const name = displayName.replace(/[\r\n"<>\\]/g, '').trim();
  return name ? `${name} <${address}>` : address;
}
