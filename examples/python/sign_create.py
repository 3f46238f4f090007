# Usage: SIGNING_SALT=<your signing_salt> python3 sign_create.py '<create body as JSON>'   (or the body on stdin)
# Prints the body with sign_type and sign added, to POST to /openapi/v1/payments/payment. Standard library only.
import hashlib, json, os, sys
from decimal import Decimal
from urllib.parse import quote


def js_number(x):
    """A number as JavaScript writes it (RFC 8785): 7.0 -> 7, 100.50 -> 100.5, 1e21 -> 1e+21."""
    if isinstance(x, int) and abs(x) <= 2**53:
        return str(x)
    if x == 0:
        return "0"
    _, digits, exp = Decimal(repr(abs(float(x)))).as_tuple()
    n = len(digits) + exp  # the value is 0.<digits> * 10**n
    d = "".join(map(str, digits)).rstrip("0")
    if len(d) <= n <= 21:
        s = d + "0" * (n - len(d))
    elif 0 < n <= 21:
        s = d[:n] + "." + d[n:]
    elif -6 < n <= 0:
        s = "0." + "0" * -n + d
    else:
        s = d[0] + ("." + d[1:] if len(d) > 1 else "") + "e" + ("+" if n > 1 else "-") + str(abs(n - 1))
    return ("-" if x < 0 else "") + s


def utf16(key):
    return key.encode("utf-16-be")  # JSON keys sort by UTF-16 code units, not by code points


def canonical(v):
    """RFC 8785 canonical JSON: compact, keys sorted, non-ASCII as itself (not \\uXXXX), numbers as JavaScript."""
    if v is None or isinstance(v, bool):
        return {None: "null", True: "true", False: "false"}[v]
    if isinstance(v, (int, float)):
        return js_number(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ",".join(canonical(x) for x in v) + "]"
    return "{" + ",".join(canonical(k) + ":" + canonical(v[k]) for k in sorted(v, key=utf16)) + "}"


def string_to_sign(body, salt):
    def text(name, value):  # amount with two decimals; percent-encoded as JavaScript's encodeURIComponent
        written = f"{value:.2f}" if name == "amount" else value if isinstance(value, str) else canonical(value)
        return quote(written, safe="-_.!~*'()")

    names = sorted((n for n, v in body.items() if n not in ("sign", "sign_type") and v not in (None, "", {})), key=utf16)
    return "&".join([f"{n}={text(n, body[n])}" for n in names] + [salt])


if __name__ == "__main__":
    body = json.loads(sys.argv[1] if len(sys.argv) > 1 else sys.stdin.read())
    body["sign_type"] = "SHA512"
    body["sign"] = hashlib.sha512(string_to_sign(body, os.environ["SIGNING_SALT"]).encode("utf-8")).hexdigest()
    print(json.dumps(body, ensure_ascii=False))
