/**
 * The HTML named character references the secret search decodes: the XML five, the no-break space and the
 * HTML5 names of ASCII punctuation (which an escaping layer may use for the %, \, &, # and ; of an inner
 * layer). Names are case-sensitive and need their ';'. The full HTML5 list (2,231 names, mostly letters
 * and symbols a secret is unlikely to hold) is not included.
 */
export const HTML_NAMED_REFERENCES: ReadonlyMap<string, number> = new Map(
  Object.entries({
    amp: 0x26,
    AMP: 0x26,
    lt: 0x3c,
    LT: 0x3c,
    gt: 0x3e,
    GT: 0x3e,
    quot: 0x22,
    QUOT: 0x22,
    apos: 0x27,
    nbsp: 0xa0,
    Tab: 0x09,
    NewLine: 0x0a,
    excl: 0x21,
    num: 0x23,
    dollar: 0x24,
    percnt: 0x25,
    lpar: 0x28,
    rpar: 0x29,
    ast: 0x2a,
    midast: 0x2a,
    plus: 0x2b,
    comma: 0x2c,
    period: 0x2e,
    sol: 0x2f,
    colon: 0x3a,
    semi: 0x3b,
    equals: 0x3d,
    quest: 0x3f,
    commat: 0x40,
    lsqb: 0x5b,
    lbrack: 0x5b,
    bsol: 0x5c,
    rsqb: 0x5d,
    rbrack: 0x5d,
    Hat: 0x5e,
    lowbar: 0x5f,
    UnderBar: 0x5f,
    grave: 0x60,
    DiacriticalGrave: 0x60,
    lcub: 0x7b,
    lbrace: 0x7b,
    verbar: 0x7c,
    vert: 0x7c,
    VerticalLine: 0x7c,
    rcub: 0x7d,
    rbrace: 0x7d,
  }),
);

export const LONGEST_HTML_NAME = Math.max(...[...HTML_NAMED_REFERENCES.keys()].map((name) => name.length));
