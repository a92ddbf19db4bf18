import { describe, expect, it } from '@jest/globals';
import { createPiiVault, maskMessages, maskPii, unmaskPii, type PiiKind } from './index.js';

/** Masks `Contact <value> today.` with a fresh vault. */
function maskInSentence(value: string): string {
  return maskPii(`Contact ${value} today.`, createPiiVault());
}

function expectMaskedAs(value: string, kind: PiiKind): void {
  const vault = createPiiVault();
  const text = `Contact ${value} today.`;
  const masked = maskPii(text, vault);
  expect(masked).toBe(`Contact [${kind}_1] today.`);
  expect(vault.entries()).toEqual([[`[${kind}_1]`, value]]);
  expect(unmaskPii(masked, vault)).toBe(text);
}

function expectUntouched(text: string): void {
  const vault = createPiiVault();
  expect(maskPii(text, vault)).toBe(text);
  expect(vault.size).toBe(0);
}

describe('maskPii: e-mail addresses', () => {
  it.each(['john.doe+tag@example.co.uk', "o'brien@mail.example.ie", 'a@b.io', 'first_last-99@sub.domain-name.org', 'jürgen@bücher.de', 'x@xn--bcher-kva.de'])(
    'masks %s',
    (value) => expectMaskedAs(value, 'EMAIL'),
  );

  it('masks addresses in angle brackets, markdown code and at the end of a sentence without taking the punctuation', () => {
    const vault = createPiiVault();
    expect(maskPii('<ann@example.com>, `bob@example.com`, "carl@example.com". Mail dora@example.com.', vault)).toBe(
      '<[EMAIL_1]>, `[EMAIL_2]`, "[EMAIL_3]". Mail [EMAIL_4].',
    );
  });

  it.each(['john@localhost', 'half an address a@b', '@handle', 'user@.com', 'user@example.c', 'two@@example.com'])('does not mask %s', (text) =>
    expectUntouched(text),
  );
});

describe('maskPii: IBANs (mod-97 checked)', () => {
  it.each([
    'DE89 3704 0044 0532 0130 00',
    'DE89370400440532013000',
    'GB82 WEST 1234 5698 7654 32',
    'FR14 2004 1010 0505 0001 3M02 606',
    'NL91ABNA0417164300',
    'ES91 2100 0418 4502 0005 1332',
    'IT60X0542811101000000123456',
    'CH93 0076 2011 6238 5295 7',
    'AT61 1904 3002 3457 3201',
    'BE68 5390 0754 7034',
    'de89 3704 0044 0532 0130 00',
    'om81 0180 0000 0129 9123 456',
    'RU0304452522540817810538091310419',
  ])('masks %s', (value) => expectMaskedAs(value, 'IBAN'));

  it('does not mask an IBAN with wrong check digits', () => {
    expectUntouched('IBAN DE88 3704 0044 0532 0130 00 please');
    expectUntouched('IBAN GB83WEST12345698765432 please');
  });

  it('does not mask a valid checksum with the wrong length for its country, or a fragment', () => {
    expectUntouched('DE89 3704');
    // NL IBANs have 18 characters; this one is padded with a group and fails mod-97 as well.
    expectUntouched('NL91 ABNA 0417 1643 0012 34');
  });

  it('does not take mod-97-valid text that is no IBAN of its country for one (ibantools checks the BBAN)', () => {
    // Belgium's national check digits (the last two) are wrong; the IBAN's own are right. Its
    // digits are still a phone number's shape, and masked as one.
    expect(maskInSentence('BE41 5390 0754 7035')).toBe('Contact BE41 [PHONE_1] today.');
    // A German BBAN is digits only.
    expectUntouched('IBAN DE05 3704 0044 0532 0130 0A please');
    // XX is no IBAN country.
    expectUntouched('IBAN XX42 1234 5678 9012 34 please');
  });

  it('stops at the end of the IBAN when more groups follow', () => {
    expect(maskInSentence('DE89 3704 0044 0532 0130 00 ABCD')).toBe('Contact [IBAN_1] ABCD today.');
  });
});

describe('maskPii: card numbers (Luhn checked)', () => {
  it.each(['4111 1111 1111 1111', '4111-1111-1111-1111', '4111111111111111', '5500 0000 0000 0004', '3782 822463 10005', '378282246310005', '6011111111111117'])(
    'masks %s',
    (value) => expectMaskedAs(value, 'CARD'),
  );

  it('does not mask 16-digit numbers that fail the Luhn check (nor as phone numbers)', () => {
    expectUntouched('Card 4111 1111 1111 1112 expired');
    expectUntouched('Card 4111111111111112 expired');
    expectUntouched('Ref 1234-5678-9012-3456');
  });

  it('does not accept mixed separators or odd groupings', () => {
    expectUntouched('4111 1111-1111 1111');
    expectUntouched('41 1111 1111 1111 11');
  });

  it('finds the card in a longer run of numbers', () => {
    expect(maskInSentence('qty 2 4111 1111 1111 1111')).toBe('Contact qty 2 [CARD_1] today.');
  });
});

describe('maskPii: IP addresses', () => {
  it.each(['192.168.0.1', '10.0.0.255', '255.255.255.255', '0.0.0.0', '2001:db8::1', '::1', 'fe80::1ff:fe23:4567:890a', '2001:0db8:85a3:0000:0000:8a2e:0370:7334', '::ffff:192.0.2.128'])(
    'masks %s',
    (value) => expectMaskedAs(value, 'IP'),
  );

  it('masks the address and keeps ports, prefixes and sentence punctuation', () => {
    const vault = createPiiVault();
    expect(maskPii('Hosts 10.0.0.1:8080, 192.168.0.0/16 and [2001:db8::2]:443. Loopback ::1.', vault)).toBe(
      'Hosts [IP_1]:8080, [IP_2]/16 and [[IP_3]]:443. Loopback [IP_4].',
    );
  });

  it.each(['999.1.1.1', 'version 1.2.3', '1.2.3.4.5', 'v1.2.3.4', '256.1.1.1', 'at 12:30:45', 'std::vector<int>', 'a :: b', 'dead::beef', 'MAC 00:1a:2b:3c:4d:5e', '1:2:3:4:5:6:7:8:9'])(
    'does not mask %s',
    (text) => expectUntouched(text),
  );
});

describe('maskPii: national ids', () => {
  it.each(['536-22-8741', '536 22 8741'])('masks the US SSN %s', (value) => expectMaskedAs(value, 'NATIONAL_ID'));

  it.each(['000-12-3456', '666-12-3456', '912-34-5678', '123-00-4567', '123-45-0000'])('does not mask the invalid SSN %s as an id', (value) => {
    expect(maskInSentence(value)).not.toContain('NATIONAL_ID');
  });

  it('leaves an SSN-shaped number with area 000 alone altogether', () => {
    expectUntouched('SSN 000-12-3456');
  });

  it.each(['AB 12 34 56 C', 'AB123456D', 'JG 10 37 59 A'])('masks the UK National Insurance number %s', (value) => expectMaskedAs(value, 'NATIONAL_ID'));

  it.each(['BG 12 34 56 A', 'QQ123456C', 'AB123456E', 'DA123456A', 'AO123456A'])('does not mask the invalid NI number %s', (value) => expectUntouched(`NI ${value}`));

  it('masks a Korean resident registration number and rejects impossible dates', () => {
    expectMaskedAs('900101-1234567', 'NATIONAL_ID');
    expect(maskInSentence('901301-1234567')).not.toContain('NATIONAL_ID');
    expect(maskInSentence('900132-1234567')).not.toContain('NATIONAL_ID');
  });

  it('masks a French NIR with a valid key only', () => {
    expectMaskedAs('1 85 05 78 006 084 91', 'NATIONAL_ID');
    expectMaskedAs('185057800608491', 'NATIONAL_ID');
    expectMaskedAs('2 69 02 99 341 732 85', 'NATIONAL_ID');
    expect(maskInSentence('1 85 05 78 006 084 92')).not.toContain('NATIONAL_ID');
  });
});

describe('maskPii: phone numbers', () => {
  it.each([
    '+49 30 1234567',
    '+49 (0)30 1234567',
    '+1 (555) 123-4567',
    '+1-555-123-4567',
    '+44 20 7946 0958',
    '+33 1 23 45 67 89',
    '+4930123456',
    '(555) 123-4567',
    '555-123-4567',
    '555.123.4567',
    '555 123 4567',
    '555-1234',
    '1 800 555 1234',
    '030 1234567',
    '0171-2345678',
    '01.23.45.67.89',
    '01711234567',
    '0049 30 1234567',
    '612 345 678',
  ])('masks %s', (value) => expectMaskedAs(value, 'PHONE'));

  it('masks a digit run without separators when a phone word precedes it', () => {
    expect(maskPii('Tel: 5551234567', createPiiVault())).toBe('Tel: [PHONE_1]');
    expect(maskPii('call me on 5551234567', createPiiVault())).toBe('call me on [PHONE_1]');
    expect(maskPii('Handy 1512345678', createPiiVault())).toBe('Handy [PHONE_1]');
  });

  it.each([
    'In 2026 we grew.',
    'Order 12345 shipped.',
    'order #12345678 shipped',
    'Invoice no. 555-123-4567',
    'Due 2026-11-21.',
    'At 2026-11-21T10:30:45Z it began.',
    'At 2026-11-21 10:30:45.123+01:00 it began.',
    'on 21.11.2026 and 11/21/2026 and 2026/11/21',
    'version 1.2.3 and v10.15.7',
    'Chrome 120.0.6099.109',
    'at 12:30:45',
    'from 1990-2020',
    'pages 1200-1450',
    'a population of 12 345 678',
    'EUR 1.234.567,89',
    '$1,234,567.89',
    'timestamp 1732185600',
    'pi is 3.14159265358979',
    'on 2026-11-21 12 people came',
    'not an IP 999.100.100.100',
    'coordinates 48.8566, 2.3522',
  ])('does not mask: %s', (text) => expectUntouched(text));

  it('separates a phone number from a date right before it', () => {
    expect(maskPii('2026-11-21 555-123-4567', createPiiVault())).toBe('2026-11-21 [PHONE_1]');
  });

  it('reads a phone word from the JSON key of a tool argument (see maskMessages)', () => {
    const [message] = maskMessages([{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'sms', arguments: '{"phone":"5551234567"}' } }] }], createPiiVault());
    expect(message.tool_calls?.[0].function.arguments).toBe('{"phone":"[PHONE_1]"}');
  });
});

describe('maskPii: detection order', () => {
  it('masks cards, IBANs and national ids before phone numbers, and never twice', () => {
    const vault = createPiiVault();
    const text = 'Card 4111 1111 1111 1111, IBAN DE89 3704 0044 0532 0130 00, SSN 536-22-8741, RRN 900101-1234567, phone +49 30 1234567, host 10.1.2.3, mail a@b.io';
    expect(maskPii(text, vault)).toBe(
      'Card [CARD_1], IBAN [IBAN_1], SSN [NATIONAL_ID_1], RRN [NATIONAL_ID_2], phone [PHONE_1], host [IP_1], mail [EMAIL_1]',
    );
    expect(vault.size).toBe(7);
  });

  it('keeps digits inside an e-mail address in the e-mail placeholder', () => {
    expect(maskInSentence('john.5551234567@example.com')).toBe('Contact [EMAIL_1] today.');
  });
});
