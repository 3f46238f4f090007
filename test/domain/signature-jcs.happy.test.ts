/**
 * metadata enters the string to sign as RFC 8785 canonical JSON (JCS): checked against the RFC's
 * own examples (sections 3.2.2, 3.2.3 and appendix B), and the second worked example of docs/signatures.md
 * (non-ASCII text, decimals) against what stringToSign and signBody really produce.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalJson, signBody, stringToSign } from '../../src/domain/signature.js';

/** JCS works on parsed JSON: the examples are JSON text, parsed as the sandbox parses a body. */
const jcs = (jsonText: string): string => canonicalJson(JSON.parse(jsonText));

describe('canonicalJson is RFC 8785 (JCS)', () => {
  it('the RFC example of section 3.2.2: numbers, escapes and literals', () => {
    const input = String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`;
    expect(jcs(input)).toBe(String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`);
  });

  it.each([
    ['1e21', '1e+21'],
    ['1E-7', '1e-7'],
    ['-0', '0'],
    ['0.000001', '0.000001'],
    ['333333333.33333329', '333333333.3333333'],
    ['9007199254740992', '9007199254740992'],
    ['295147905179352830000', '295147905179352830000'],
    ['999999999999999700000', '999999999999999700000'],
    ['1e23', '1e+23'],
    ['9.999999999999997e-7', '9.999999999999997e-7'],
    ['5e-324', '5e-324'],
    ['-1.7976931348623157e+308', '-1.7976931348623157e+308'],
    ['1424953923781206.2', '1424953923781206.2'],
    ['-0.0000033333333333333333', '-0.0000033333333333333333'],
    ['7.0', '7'],
    ['100.50', '100.5'],
  ])('numbers as ECMAScript writes them (appendix B): %s is %s', (input, output) => {
    expect(jcs(`{"n":${input}}`)).toBe(`{"n":${output}}`);
  });

  it('strings: control characters as \\b \\t \\n \\f \\r or lowercase \\u00xx, non-ASCII as itself, / and DEL unescaped', () => {
    expect(jcs(String.raw`{"s":"\u0000\u0008\u0009\u000A\u000C\u000D\u001F \" \\ \/ \u007F é ☕ \ud83d\ude02"}`)).toBe(
      String.raw`{"s":"\u0000\b\t\n\f\r\u001f \" \\ / ` + '\u007f é ☕ \u{1F602}"}',
    );
  });

  it('the RFC example of section 3.2.3: keys sorted by UTF-16 code units, non-ASCII keys included, at every level', () => {
    const input = String.raw`{"\u20ac":"Euro Sign","\r":"Carriage Return","\u000a":"Newline","1":"One","\u0080":"Control\u007f",
      "\ud83d\ude02":"Smiley","\u00f6":"Latin Small Letter O With Diaeresis","\ufb33":"Hebrew Letter Dalet With Dagesh","</script>":"Browser Challenge"}`;
    expect(jcs(input)).toBe(
      String.raw`{"\n":"Newline","\r":"Carriage Return","1":"One","</script>":"Browser Challenge",` +
        '"\u0080":"Control\u007f","ö":"Latin Small Letter O With Diaeresis","€":"Euro Sign","\u{1F602}":"Smiley","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
    // U+1F602 is the pair \ud83d\ude02, which sorts before U+FB33 by code unit (not by code point).
    expect(jcs('{"b":{"\\ufb33":1,"\\ud83d\\ude02":2},"a":[{"z":1,"y":2}]}')).toBe('{"a":[{"y":2,"z":1}],"b":{"\u{1F602}":2,"\ufb33":1}}');
  });
});

/** The code blocks of docs/signatures.md that follow `marker`, in order. */
function readmeBlocksAfter(marker: string, count: number): string[] {
  const readme = readFileSync(new URL('../../docs/signatures.md', import.meta.url), 'utf8');
  const start = readme.indexOf(marker);
  expect(start, `docs/signatures.md has "${marker}"`).toBeGreaterThan(-1);
  const blocks = [...readme.slice(start).matchAll(/^```[^\n]*\n([\s\S]*?)^```$/gm)].map((m) => m[1]!.trimEnd());
  return blocks.slice(0, count);
}

describe('the docs worked example with non-ASCII text and decimals', () => {
  const [bodyText, stringText, signText] = readmeBlocksAfter('Worked example with non-ASCII text and decimals', 3);
  const body = JSON.parse(bodyText!) as Record<string, unknown>;

  it('shows the string that stringToSign builds: metadata as JCS (7.0 as 7, 100.50 as 100.5, café ☕ as UTF-8 percent-encoded)', () => {
    expect(bodyText).toContain('"ratio":7.0');
    expect(stringText).toBe(stringToSign(body, 'demo-signing-salt'));
    expect(stringText).toContain(encodeURIComponent('{"n":100.5,"note":"café ☕","ratio":7}'));
  });

  it('shows the sign that signBody computes', () => {
    expect(signText).toBe(signBody(body, 'demo-signing-salt'));
  });
});
