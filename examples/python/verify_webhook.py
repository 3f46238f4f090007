# Usage: WEBHOOK_SECRET=<your whsec_...> python3 verify_webhook.py '<Sandbox-Signature header>' < raw_body
# Exits 0 and prints event_id and type when the delivery is genuine and fresh, else prints why and exits 1.
import hashlib, hmac, json, os, re, sys, time

TOLERANCE_SECONDS = 5 * 60  # refuse a delivery copied and sent again later


def verify(secret, header, body, now=None):
    """Sandbox-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>; body as bytes received."""
    fields = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    t, v1 = fields.get("t", ""), fields.get("v1", "")
    if not re.fullmatch(r"[0-9]+", t) or not re.fullmatch(r"[0-9a-f]{64}", v1):
        return "malformed Sandbox-Signature header"
    if abs((time.time() if now is None else now) - int(t)) > TOLERANCE_SECONDS:
        return "timestamp more than 5 minutes from now"
    expected = hmac.new(secret.encode("utf-8"), t.encode("ascii") + b"." + body, hashlib.sha256).hexdigest()
    # Check the bytes as received, before parsing: re-serialised JSON would not match.
    return None if hmac.compare_digest(expected, v1) else "signature does not match the body"


if __name__ == "__main__":
    body = sys.stdin.buffer.read()
    problem = verify(os.environ["WEBHOOK_SECRET"], sys.argv[1] if len(sys.argv) > 1 else "", body)
    if problem:
        print("refused:", problem)
        sys.exit(1)
    event = json.loads(body)
    print("verified:", event["event_id"], event["type"])
