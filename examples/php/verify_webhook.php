<?php
// Usage: WEBHOOK_SECRET=<your whsec_...> php verify_webhook.php '<Sandbox-Signature header>' < raw_body
// Exits 0 and prints event_id and type when the delivery is genuine and fresh, else prints why and exits 1.
const TOLERANCE_SECONDS = 5 * 60; // refuse a delivery copied and sent again later

/**
 * Sandbox-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>. In a web handler pass
 * $_SERVER['HTTP_SANDBOX_SIGNATURE'] and file_get_contents('php://input'): the bytes as received, not re-encoded JSON.
 */
function verify(string $secret, string $header, string $body, ?int $now = null): ?string {
    $fields = [];
    foreach (explode(',', $header) as $part) {
        [$name, $value] = array_pad(explode('=', $part, 2), 2, '');
        $fields[$name] = $value;
    }
    $t = $fields['t'] ?? '';
    $v1 = $fields['v1'] ?? '';
    if (!preg_match('/^[0-9]+$/', $t) || !preg_match('/^[0-9a-f]{64}$/', $v1)) return 'malformed Sandbox-Signature header';
    if (abs(($now ?? time()) - (int) $t) > TOLERANCE_SECONDS) return 'timestamp more than 5 minutes from now';
    return hash_equals(hash_hmac('sha256', $t . '.' . $body, $secret), $v1) ? null : 'signature does not match the body';
}

$body = stream_get_contents(STDIN);
$problem = verify(getenv('WEBHOOK_SECRET'), $argv[1] ?? '', $body);
if ($problem !== null) {
    echo 'refused: ', $problem, PHP_EOL;
    exit(1);
}
$event = json_decode($body);
echo 'verified: ', $event->event_id, ' ', $event->type, PHP_EOL;
