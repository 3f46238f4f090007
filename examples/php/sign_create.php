<?php
// Usage: SIGNING_SALT=<your signing_salt> php sign_create.php '<create body as JSON>'   (or the body on stdin)
// Prints the body with sign_type and sign added, to POST to /openapi/v1/payments/payment. Standard library only.
ini_set('serialize_precision', '-1'); // floats as their shortest round-trip digits

/** A number as JavaScript writes it (RFC 8785): 7.0 -> 7, 100.50 -> 100.5, 1e21 -> 1e+21. */
function js_number(int|float $x): string {
    if (is_int($x) && abs($x) <= 2 ** 53) return (string) $x;
    if ($x == 0) return '0';
    preg_match('/^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i', json_encode(abs((float) $x)), $m);
    $digits = ltrim($m[1] . ($m[2] ?? ''), '0');
    $n = strlen($m[1]) + (int) ($m[3] ?? 0) - (strlen($m[1] . ($m[2] ?? '')) - strlen($digits)); // value = 0.<digits> * 10^n
    $d = rtrim($digits, '0');
    $k = strlen($d);
    if ($k <= $n && $n <= 21) $s = $d . str_repeat('0', $n - $k);
    elseif (0 < $n && $n <= 21) $s = substr($d, 0, $n) . '.' . substr($d, $n);
    elseif (-6 < $n && $n <= 0) $s = '0.' . str_repeat('0', -$n) . $d;
    else $s = $d[0] . ($k > 1 ? '.' . substr($d, 1) : '') . 'e' . ($n > 1 ? '+' : '-') . abs($n - 1);
    return ($x < 0 ? '-' : '') . $s;
}

/** JSON keys sort by UTF-16 code units, not by bytes. */
function utf16_order(string $a, string $b): int {
    return strcmp(iconv('UTF-8', 'UTF-16BE', $a), iconv('UTF-8', 'UTF-16BE', $b));
}

/** RFC 8785 canonical JSON of a value decoded with json_decode($text) (objects as stdClass, so {} stays {}). */
function canonical(mixed $v): string {
    if (is_int($v) || is_float($v)) return js_number($v);
    if (is_string($v)) return json_encode($v, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_LINE_TERMINATORS);
    if (is_array($v)) return '[' . implode(',', array_map('canonical', $v)) . ']';
    if (!is_object($v)) return json_encode($v); // null, true, false
    $keys = array_map('strval', array_keys(get_object_vars($v)));
    usort($keys, 'utf16_order');
    return '{' . implode(',', array_map(fn ($k) => canonical($k) . ':' . canonical($v->$k), $keys)) . '}';
}

function string_to_sign(stdClass $body, string $salt): string {
    $left_out = fn ($v) => $v === null || $v === '' || ($v instanceof stdClass && !get_object_vars($v)); // null, "" and {}
    $names = array_filter(array_map('strval', array_keys(get_object_vars($body))), fn ($n) => !in_array($n, ['sign', 'sign_type'], true) && !$left_out($body->$n));
    usort($names, 'utf16_order');
    $fields = array_map(function ($n) use ($body) {
        $v = $body->$n;
        $text = $n === 'amount' ? number_format($v, 2, '.', '') : (is_string($v) ? $v : canonical($v));
        // rawurlencode, then !*'() left as they are, as JavaScript's encodeURIComponent does
        return $n . '=' . strtr(rawurlencode($text), ['%21' => '!', '%2A' => '*', '%27' => "'", '%28' => '(', '%29' => ')']);
    }, $names);
    return implode('&', [...$fields, $salt]);
}

$body = json_decode($argv[1] ?? stream_get_contents(STDIN), false, 512, JSON_THROW_ON_ERROR);
$body->sign_type = 'SHA512';
$body->sign = hash('sha512', string_to_sign($body, getenv('SIGNING_SALT')));
echo json_encode($body, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION), PHP_EOL;
