/** Every `code` the sandbox answers, with what it means and what causes it (GET /sandbox/v1/codes). */

export const Code = {
  OK: 200,
  INVALID: 400,
  UNAUTHENTICATED: 401,
  REQUEST_FAILED: 402,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  EXPECTATION_FAILED: 417,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  TIMEOUT: 504,
} as const;

export type ResponseCode = (typeof Code)[keyof typeof Code];

export interface CodeInfo {
  readonly code: ResponseCode;
  readonly meaning: string;
  readonly causes: readonly string[];
}

export const CODE_CATALOGUE: readonly CodeInfo[] = [
  { code: 200, meaning: 'Success', causes: ['The request was valid and its change, if any, is stored.'] },
  {
    code: 400,
    meaning: 'Invalid parameters',
    causes: [
      'Malformed or truncated JSON, or a body that is not a JSON object',
      'A required field is missing, null or of the wrong type',
      'An amount with more than two decimals, a string amount, or one outside 0.01 to 9999999999.99',
      'An unknown or lower-case currency_code, or an unknown product_type',
      'A payee that is not the merchant of the Service-Api-Key',
      'An HTTP/1.1 request without Host, or a Host or request target no URL can be made of; answered before the app',
    ],
  },
  {
    code: 401,
    meaning: 'Not authenticated',
    causes: [
      'Missing or unknown Service-Api-Key header',
      'Signature missing where the merchant requires one',
      'Unknown sign_type',
      'Signature mismatch',
    ],
  },
  {
    code: 402,
    meaning: 'Request failed: valid, but it cannot be processed now',
    causes: [
      'The payment status does not allow the operation (cancel a paid payment, void a settled one)',
      'Duplicate merchant_ref_no for this merchant (the answer carries the existing payment_id)',
      'The merchant reached the sandbox cap on stored payments',
    ],
  },
  { code: 404, meaning: 'Not found', causes: ['Unknown payment_id, or one of another merchant', 'Unknown route'] },
  { code: 405, meaning: 'Method not allowed', causes: ['The route exists but not with this HTTP method; see the Allow header', 'CONNECT: the sandbox is not a proxy; answered before the app, with Connection: close'] },
  {
    code: 408,
    meaning: 'Request timeout',
    causes: ['The headers took over 10 s or the whole request over 30 s to arrive (SANDBOX_HEADERS_TIMEOUT_MS, SANDBOX_REQUEST_TIMEOUT_MS); answered before the app, with Connection: close'],
  },
  { code: 413, meaning: 'Body too large', causes: ['The request body is over 64 KiB'] },
  {
    code: 414,
    meaning: 'URI too long',
    causes: ['The request path is over 2,048 characters; answered on every route, known or not, before the key is checked or fault rules are matched'],
  },
  { code: 415, meaning: 'Unsupported media type', causes: ['A body was sent without Content-Type: application/json'] },
  { code: 417, meaning: 'Expectation failed', causes: ['An Expect header other than 100-continue; answered before the app, with Connection: close'] },
  {
    code: 429,
    meaning: 'Rate limited',
    causes: ["Over the merchant's requests-per-second limit; retry after the Retry-After header", 'Over the enrolments per minute of one client address (SANDBOX_ENROLL_LIMIT)', 'Over 32 requests of one merchant held at once by latency or timeout faults on one instance'],
  },
  { code: 431, meaning: 'Request headers too large', causes: ['The request headers are over 16 KiB; answered before the app, with Connection: close'] },
  { code: 500, meaning: 'Internal error', causes: ['Injected by a fault (amount 900.01, Sandbox-Fault: error=500)', 'A sandbox bug'] },
  {
    code: 503,
    meaning: 'Service unavailable',
    causes: [
      'Injected by a fault (amount 900.02, Sandbox-Fault: error=503)',
      'The sandbox cannot write its data file (a full disk, a read-only directory) or the database cannot be reached: nothing was changed; retry. ' +
        'When the connection to the database was lost mid-call, a change may have been made: read the payment status before you retry',
    ],
  },
  {
    code: 504,
    meaning: 'Gateway timeout',
    causes: ['Injected by a fault (Sandbox-Fault: error=504)', 'A timeout fault (or amount 900.03) held the answer for 120 s: the change was committed; query the payment status'],
  },
];
