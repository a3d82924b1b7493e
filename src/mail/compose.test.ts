import { describe, expect, it } from 'vitest';
import { isMailAddress } from './address';
import { composeMail, fillPlaceholders, senderOf } from './compose';

describe('mail template placeholders', () => {
  it('${name} is replaced by its value; a name with no value stays as written', () => {
    expect(fillPlaceholders('Hi ${name}, order ${order_id} ${missing}', { name: 'Ann', order_id: '42' })).toBe('Hi Ann, order 42 ${missing}');
  });

  it('$${name} writes a literal ${name}', () => {
    expect(fillPlaceholders('Use $${name} for the name; you are ${name}', { name: 'Ann' })).toBe('Use ${name} for the name; you are Ann');
  });

  it('a value is inserted once: placeholders inside a value are not filled again', () => {
    expect(fillPlaceholders('${a}', { a: '${b}', b: 'x' })).toBe('${b}');
  });

  it('values are HTML-escaped in html, kept as is in text, and put on one line in the subject', () => {
    const mail = composeMail({ subject: 'Re: ${title}', html: '<p>${title}</p>', text: '${title}' }, { title: '<b>"Tom" & Jerry</b>\r\nBcc: x@y.z' });
    expect(mail.html).toBe('<p>&lt;b&gt;&quot;Tom&quot; &amp; Jerry&lt;/b&gt;\r\nBcc: x@y.z</p>');
    expect(mail.text).toBe('<b>"Tom" & Jerry</b>\r\nBcc: x@y.z');
    expect(mail.subject).toBe('Re: <b>"Tom" & Jerry</b> Bcc: x@y.z');
  });

  it('the sender is "Name <address>" with header-breaking characters left out of the name', () => {
    expect(senderOf('Shop "One" <x>', 'no-reply@shop.test')).toBe('Shop One x <no-reply@shop.test>');
    expect(senderOf('', 'no-reply@shop.test')).toBe('no-reply@shop.test');
  });
});

describe('e-mail addresses', () => {
  it('accepts one address local@domain.tld', () => {
    for (const ok of ['a@b.co', 'first.last+tag@mail.example.com', "o'neil@xn--bcher-kva.example"]) expect([ok, isMailAddress(ok)]).toEqual([ok, true]);
  });

  it('refuses lists, display names, spaces, missing parts and non-text', () => {
    for (const bad of ['', 'a@b', '@b.co', 'a@', 'a b@c.de', 'a@b.co, c@d.de', 'Ann <a@b.co>', 'a..b@c.de', 'a@-b.co', 'a@b..co', 5, null, ['a@b.co']]) {
      expect([bad, isMailAddress(bad)]).toEqual([bad, false]);
    }
    expect(isMailAddress(`${'x'.repeat(65)}@b.co`)).toBe(false);
  });
});
