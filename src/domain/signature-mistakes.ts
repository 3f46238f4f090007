/**
 * The catalogue of the signature doctor: each known way of getting a sign wrong, with its fix.
 * Pure: no I/O, no HTTP.
 */
export type SignatureMistakeId =
  | 'uppercase-hex'
  | 'sha256'
  | 'base64-digest'
  | 'form-encoding'
  | 'values-not-encoded'
  | 'fields-in-sent-order'
  | 'amount-not-two-decimals'
  | 'metadata-keys-unsorted'
  | 'sign-fields-included'
  | 'empty-fields-included'
  | 'salt-missing'
  | 'salt-without-ampersand'
  | 'json-unicode-escaped'
  | 'json-spaced-separators'
  | 'json-escaped-slashes'
  | 'numbers-with-fraction'
  | 'booleans-not-true-false'
  | 'php-rawurlencode'
  | 'php-http-build-query';

export interface SignatureMistake {
  readonly id: SignatureMistakeId;
  /** What the integration did, in one sentence. */
  readonly mistake: string;
  /** What to do instead. */
  readonly fix: string;
}

/** The catalogue. No text quotes the request or the salt, so a hint never carries either. */
export const SIGNATURE_MISTAKES: Readonly<Record<SignatureMistakeId, SignatureMistake>> = {
  'uppercase-hex': { id: 'uppercase-hex', mistake: 'the hex digest is written in upper case', fix: "write it in lower case (digest('hex') as it is, no toUpperCase(); %02x, not %02X)" },
  sha256: { id: 'sha256', mistake: 'the digest is SHA-256', fix: 'hash with SHA-512: sign is 128 hex characters' },
  'base64-digest': { id: 'base64-digest', mistake: 'the digest is written in base64', fix: 'write the SHA-512 digest as lowercase hex' },
  'form-encoding': {
    id: 'form-encoding',
    mistake: 'values are form-encoded (space as +, as URLSearchParams, PHP urlencode or Java URLEncoder write them)',
    fix: "encode each value exactly as JavaScript's encodeURIComponent: space as %20, letters, digits and - _ . ! ~ * ' ( ) left as they are (PHP: rawurlencode, then ! * ' ( ) put back; Python: quote(value, safe=\"-_.!~*'()\"))",
  },
  'values-not-encoded': { id: 'values-not-encoded', mistake: 'values are written without percent-encoding', fix: "percent-encode each value as JavaScript's encodeURIComponent does" },
  'fields-in-sent-order': { id: 'fields-in-sent-order', mistake: 'fields are joined in the order of the body instead of sorted by name', fix: 'sort the fields by name before joining them' },
  'amount-not-two-decimals': {
    id: 'amount-not-two-decimals',
    mistake: 'amount is written as the number prints (25 or 10.5) instead of with two decimals',
    fix: 'write amount with exactly two decimals (amount.toFixed(2): 25.00, 10.50)',
  },
  'metadata-keys-unsorted': {
    id: 'metadata-keys-unsorted',
    mistake: 'metadata is written with its keys in their own order (plain JSON.stringify)',
    fix: 'write metadata as compact JSON with the keys sorted at every level',
  },
  'sign-fields-included': { id: 'sign-fields-included', mistake: 'sign_type (or an empty sign) is part of the string to sign', fix: 'leave sign_type and sign out of the string to sign' },
  'empty-fields-included': { id: 'empty-fields-included', mistake: 'fields whose value is null, "" or {} are part of the string to sign', fix: 'leave out every field whose value is null, "" or {}' },
  'salt-missing': { id: 'salt-missing', mistake: 'the signing salt is not appended', fix: 'append "&" and your signing salt to the end of the string' },
  'salt-without-ampersand': { id: 'salt-without-ampersand', mistake: 'the signing salt is appended without "&" before it', fix: 'join the salt with "&": ...&product_type=...&<signing_salt>' },
  'json-unicode-escaped': {
    id: 'json-unicode-escaped',
    mistake: "metadata's non-ASCII characters are written as \\uXXXX escapes (the default of Python's json.dumps and of PHP's json_encode)",
    fix: 'write them as themselves, as RFC 8785 does (json.dumps(..., ensure_ascii=False); json_encode(..., JSON_UNESCAPED_UNICODE)); their UTF-8 bytes are then percent-encoded',
  },
  'json-spaced-separators': {
    id: 'json-spaced-separators',
    mistake: 'metadata is written with ", " and ": " between items (the default separators of Python\'s json.dumps)',
    fix: 'write compact JSON, as RFC 8785 does: json.dumps(..., separators=(",", ":"))',
  },
  'json-escaped-slashes': {
    id: 'json-escaped-slashes',
    mistake: 'metadata\'s "/" is written "\\/" (the default of PHP\'s json_encode)',
    fix: 'leave "/" as it is, as RFC 8785 does: json_encode(..., JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE)',
  },
  'numbers-with-fraction': {
    id: 'numbers-with-fraction',
    mistake: 'whole numbers are written with a fraction (7.0), as Python writes a float (and PHP with JSON_PRESERVE_ZERO_FRACTION)',
    fix: 'write numbers as JavaScript and RFC 8785 do: 7.0 as 7, 100.50 as 100.5 (examples/python/sign_create.py has a js_number)',
  },
  'booleans-not-true-false': {
    id: 'booleans-not-true-false',
    mistake: "booleans are written True/False (Python's str()) or 1/empty (PHP's string cast)",
    fix: 'write true and false, as JSON and JavaScript do',
  },
  'php-rawurlencode': {
    id: 'php-rawurlencode',
    mistake: "values are encoded with PHP's rawurlencode, which also encodes ! * ' ( ) (as %21 %2A %27 %28 %29)",
    fix: "leave ! * ' ( ) as they are, as encodeURIComponent does: strtr(rawurlencode($v), ['%21' => '!', '%2A' => '*', '%27' => \"'\", '%28' => '(', '%29' => ')'])",
  },
  'php-http-build-query': {
    id: 'php-http-build-query',
    mistake: "the fields are written by PHP's http_build_query (space as +, metadata as metadata%5Bkey%5D=..., true as 1)",
    fix: 'write each field as name=value yourself: metadata as RFC 8785 canonical JSON, each value encoded as encodeURIComponent does (see examples/php/sign_create.php)',
  },
};
